'use strict'
// Movement packets within vanilla's bounds. A position that is not a finite number, or beyond 30 000 000 blocks
// across (20 000 000 up or down), or a rotation that is not finite, disconnects its sender with "Invalid move player
// packet received", as vanilla does (ServerGamePacketListenerImpl.containsInvalidValues). flying-squid took such a
// position as the player's, and sent it to every player near it: other clients, and the agents' bots, saw a player
// at NaN or at 1e308.

const path = require('path')
const { refusePackets } = require(path.join(__dirname, '..', 'js', 'lib', 'hooks.js'))

const MAX_HORIZONTAL = 3.0e7
const MAX_VERTICAL = 2.0e7
const INVALID_MOVE = 'Invalid move player packet received'

function validPosition ({ x, y, z }) {
  return [x, y, z].every(Number.isFinite) && Math.abs(x) <= MAX_HORIZONTAL && Math.abs(z) <= MAX_HORIZONTAL &&
    Math.abs(y) <= MAX_VERTICAL
}

function validRotation ({ yaw, pitch }) {
  return Number.isFinite(yaw) && Number.isFinite(pitch)
}

module.exports.player = function (player) {
  const check = (valid) => (data) => {
    if (valid(data)) return true
    player.kick?.(INVALID_MOVE)
    return false
  }
  refusePackets(player._client, {
    position: check(validPosition),
    position_look: check((data) => validPosition(data) && validRotation(data)),
    look: check(validRotation),
    vehicle_move: check((data) => validPosition(data) && validRotation(data))
  })
}
