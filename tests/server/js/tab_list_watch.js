'use strict'
// Test helper: how many entries each tab-list packet adding players (player_info with add_player) carried.

function watchTabList (bot) {
  bot.mindpyTabEntries = []
  bot._client.on('player_info', packet => {
    if (packet.action && packet.action.add_player) bot.mindpyTabEntries.push(packet.data.length)
  })
  return true
}

function tabEntriesJson (bot) {
  return JSON.stringify(bot.mindpyTabEntries || [])
}

module.exports = { watchTabList, tabEntriesJson }
