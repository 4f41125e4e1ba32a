'use strict'
// Runs chat through mineflayer's own chat plugin, on a bot with no connection, and prints what reaches
// minecraft-protocol's client.chat (which sends a message that starts with "/" as a command).
// stdin: {"version": "1.21.1", "calls": [{"kind": "chat"|"whisper", "player": NAME, "pieces": [...]}, ...]}
// stdout: {"limit": N, "calls": [{"sent": [...], "refused": "why plain_chat.js refuses the pieces" | null}, ...]}

const EventEmitter = require('events')
const injectChat = require('mineflayer/lib/plugins/chat')
const plainChat = require('../../mindpy/bridge/js/plain_chat')

function bareBot (version, sent) {
  const registry = require('prismarine-registry')(version)
  const bot = new EventEmitter()
  bot.registry = registry
  bot.supportFeature = registry.supportFeature
  bot._client = new EventEmitter()
  bot._client.chat = message => sent.push(message)
  injectChat(bot, {})
  return bot
}

function run (request) {
  const sent = []
  const bot = bareBot(request.version, sent)
  const calls = request.calls.map(call => {
    sent.length = 0
    let refused = null
    try {
      if (call.kind === 'whisper') plainChat.whisperPlain(bot, call.player, JSON.stringify(call.pieces))
      else plainChat.chatPlain(bot, JSON.stringify(call.pieces))
    } catch (err) {
      refused = err.message
    }
    return { sent: sent.slice(), refused }
  })
  return { limit: plainChat.chatLimit(bot), calls }
}

let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', chunk => { input += chunk })
process.stdin.on('end', () => process.stdout.write(JSON.stringify(run(JSON.parse(input)))))
