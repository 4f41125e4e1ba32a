'use strict'
// Test helper: a client that joins and then sends no movement at all (mineflayer with its physics off): it only
// confirms the server's teleports. Some clients never send the 'flying' or 'look' packet that flying-squid's login
// waits for before it sends the rest of the view.

const mineflayer = require('mineflayer')

let still = null

function joinStill (host, port, username, version) {
  still = mineflayer.createBot({ host, port, username, version, auth: 'offline', physicsEnabled: false,
    hideErrors: true, logErrors: false })
  return true
}

function stillState () {
  if (!still || !still.entity) return JSON.stringify({ spawned: false })
  return JSON.stringify({ spawned: true, columns: still.world.getColumns().length })
}

function leaveStill () {
  if (still) still.end()
  still = null
  return true
}

module.exports = { joinStill, stillState, leaveStill }
