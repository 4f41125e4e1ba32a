'use strict'
// flying-squid sends the chunks around a player when it moves more than 16 blocks, but not while it is
// still sending the previous batch (e.g. right after login). A teleport during that time leaves the player
// in a world with no chunks, forever. After each batch, send again if the player has moved on since.

module.exports.player = function (player) {
  let sendRest
  Object.defineProperty(player, 'worldSendRestOfChunks', {
    configurable: true,
    get: () => sendRest,
    set: (original) => {
      sendRest = async function () {
        await original()
        if (player.position.distanceTo(player.lastPositionChunkUpdated) > 16) return sendRest()
      }
    }
  })
}
