'use strict'
// A smaller view for a crowd. Sending and decoding the chunk columns of each joining player's view is most of what a
// join costs (flying-squid sends (2 * view distance)^2 columns: 144 at 6, 64 at 4), on the server and in the bots'
// Node processes. While more than `crowdPlayers` players are online, the view distance of every player is
// `crowdViewDistance` (if smaller than `viewDistance`): players joining get it in their login packet, players
// already in get update_view_distance and lose the columns beyond it (flying-squid keeps those within the view
// distance of their own column on each side: (2 * view + 1)^2 at most). When the crowd thins out again, the view goes
// back up. Config (server.js passes EmbeddedServer options): crowdPlayers (default 32), crowdViewDistance (default
// 4; 0 or the full view distance turns this off).

const CROWD_PLAYERS = 32
const CROWD_VIEW_DISTANCE = 4

module.exports.server = function (serv, settings) {
  const config = settings?.mindpy || {}
  const full = settings['view-distance']
  const crowdPlayers = config.crowdPlayers ?? CROWD_PLAYERS
  const crowdView = config.crowdViewDistance ?? CROWD_VIEW_DISTANCE
  if (!crowdView || crowdView >= full) return

  function apply (online) {
    const view = online > crowdPlayers ? crowdView : full
    if (view === settings['view-distance']) return
    settings['view-distance'] = view // flying-squid reads it for each login packet and each batch of columns
    for (const player of serv.players) {
      if (!player.mindpyLoginSent || player.disconnected) continue
      player._client.write('update_view_distance', { viewDistance: view })
      if (player.sendingChunks) player.mindpyViewChanged = true // its batch goes on at the old distance
      player.emit('playerChangeRenderDistance', player.view ?? full) // the client's own view, if it sent one
    }
  }

  // before the joining player's login packet and first columns (it is not in serv.players yet)
  serv.on('newPlayer', (player) => {
    apply(serv.players.length + 1)
    // the connection's end, not 'disconnected': a player refused at login (09_unique_names) leaves no other trace
    player._client.once('end', () => setImmediate(() => apply(serv.players.length)))
  })
}
