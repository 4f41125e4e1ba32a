'use strict'
// Test helper: what a bot's client failed to read. minecraft-protocol only prints a packet it read in part
// ("Chunk size is 42 but only 37 was read ; partial packet") and emits 'error' for one it could not read at all;
// this records both for the test to assert on.

function watchPackets (bot) {
  if (bot.mindpyPacketWatch) return true
  const watch = { partial: [], errors: [] }
  bot.mindpyPacketWatch = watch
  bot._client.on('packet', (data, meta, buffer, fullBuffer) => {
    if (fullBuffer && meta.size !== fullBuffer.length) {
      watch.partial.push({ name: meta.name, read: meta.size, length: fullBuffer.length })
    }
  })
  bot._client.on('error', err => watch.errors.push(String(err && err.message)))
  return true
}

// {partial: [{name, read, length}], errors: [message]} since watchPackets, as JSON text.
function packetProblemsJson (bot) {
  return JSON.stringify(bot.mindpyPacketWatch || { partial: [], errors: [] })
}

module.exports = { watchPackets, packetProblemsJson }
