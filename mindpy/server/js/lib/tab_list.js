'use strict'
// The player_info packet that adds players to a client's tab list, in the version's shape: from 1.19.3 on one packet
// carries a set of actions (a bitfield) and entries of the newer shape; before, one action and the older entries.
// mineflayer links a player entity to its player only if the entry came first, so every version needs it.

const ADD_ACTIONS = { add_player: true, update_game_mode: true, update_listed: true, update_latency: true }

function addToTabList (serv, players) {
  if (serv.supportFeature('playerInfoActionIsBitfield')) {
    return {
      action: ADD_ACTIONS,
      data: players.map(player => ({
        uuid: player.uuid,
        player: { name: player.username, properties: player.profileProperties || [] },
        gamemode: player.gameMode,
        listed: true,
        latency: player._client.latency || 0
      }))
    }
  }
  return {
    action: 'add_player',
    data: players.map(player => ({
      uuid: player.uuid,
      name: player.username,
      properties: player.profileProperties || [],
      gamemode: player.gameMode,
      ping: player._client.latency || 0
    }))
  }
}

module.exports = { addToTabList }
