'use strict'
// Chunk streaming after teleports. flying-squid sends the chunks around a player when it moves more than
// 16 blocks, but (a) it checks the distance in the 'move' event, before the new position is stored, so a
// teleport of a player who then stands still never gets its chunks; and (b) it skips the check while an
// earlier batch is still being sent (e.g. right after login). We check again once the position is stored,
// and again after each batch. A batch that was under way when the view distance changed (plugins/07_crowd_view.js
// sets mindpyViewChanged) is followed by another at the new distance, which unloads what the old one sent beyond it.

function movedAway (player) {
  return player.lastPositionChunkUpdated && player.position.distanceTo(player.lastPositionChunkUpdated) > 16
}

module.exports.player = function (player) {
  let sendRest
  Object.defineProperty(player, 'worldSendRestOfChunks', {
    configurable: true,
    get: () => sendRest,
    set: (original) => {
      sendRest = async function () {
        player.mindpyViewChanged = false
        await original()
        if (movedAway(player) || player.mindpyViewChanged) return sendRest()
      }
    }
  })
  player.on('move_done', () => {
    if (sendRest && !player.sendingChunks && movedAway(player)) sendRest()
  })
}
