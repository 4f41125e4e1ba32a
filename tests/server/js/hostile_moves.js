'use strict'
// Test helper: movement packets a hostile client can send and JSON cannot carry from Python (NaN, Infinity).

const VALUES = { nan: NaN, infinity: Infinity }

function sendPosition (bot, x) {
  const value = typeof x === 'string' ? VALUES[x] : x
  bot._client.write('position', { x: value, y: -60, z: 0, onGround: true, flags: { onGround: true } })
  return true
}

module.exports = { sendPosition }
