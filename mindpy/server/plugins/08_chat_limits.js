'use strict'
// Chat and commands within vanilla's limits, so that one player's packet cannot drop the others.
//
// - A chat message or command longer than 256 characters (vanilla's limit, which its own client never exceeds)
//   reaches no handler: the sender is disconnected with a reason saying why, as vanilla disconnects it. flying-squid
//   broadcast such a message whole, and the chat text of 1.20.3+ is an NBT string of at most 65535 bytes: a
//   100 000-character message failed to serialize for every player at once, and every client was dropped.
// - So is one holding a character vanilla does not allow in chat ('§', which starts a formatting code, a control
//   character, DEL): vanilla disconnects its sender with "Illegal characters in chat". Such text reached every
//   player, and an agent's console and model, as it was.
// - Text the server sends a player (chat, command replies, system lines) is cut to MAX_SENT_CHARS, so no text a
//   plugin builds can fail to serialize.
// - A broadcast writes to each player on its own: an error while writing to one does not stop the others getting it
//   (flying-squid's loop ended at the first error).

const path = require('path')
const { keepOwn, refusePackets } = require(path.join(__dirname, '..', 'js', 'lib', 'hooks.js'))

const MAX_CHAT_CHARS = 256
const ILLEGAL_IN_CHAT = /[\u0000-\u001f\u007f\u00a7]/ // vanilla's StringUtil.isAllowedChatCharacter refuses these
// 3 bytes a character at most in the NBT string's modified UTF-8 (a surrogate pair is 2 characters, 6 bytes):
// always below its 65535 bytes
const MAX_SENT_CHARS = 16384

module.exports.server = function (serv) {
  keepOwn(serv, 'broadcast', (message, { whitelist = serv.players, blacklist = [], system = false } = {}) => {
    if (whitelist.type === 'player') whitelist = [whitelist]
    for (const player of whitelist) {
      if (blacklist.includes(player)) continue
      try {
        if (system) player.system(message)
        else player.chat(message)
      } catch (err) {
        serv.warn?.(`a broadcast to ${player.username} failed: ${err && err.message}`)
      }
    }
  })
  wrapNowAndLater(serv, '_createChatComponent', (original) => (text) => original(cutText(text)))
  wrapNowAndLater(serv, '_createJsonChat', (original) => (text) => original(cutText(text)))
}

module.exports.player = function (player) {
  // whether the text may go on; if not, the sender is disconnected with the reason
  const allowed = (what) => (text) => {
    if (typeof text !== 'string') return true
    if (text.length > MAX_CHAT_CHARS) return refuse(`${what} too long: ${text.length} characters (at most ${MAX_CHAT_CHARS})`)
    if (ILLEGAL_IN_CHAT.test(text)) return refuse('Illegal characters in chat')
    return true
  }
  const refuse = (reason) => {
    player.kick?.(reason)
    return false
  }
  const chat = allowed('Chat message')
  const command = allowed('Command')
  // 1.19+ sends chat_message and chat_command (chat_command_signed from 1.20.5); before, one 'chat' packet for both
  refusePackets(player._client, {
    chat_message: (data) => chat(data.message),
    chat_command: (data) => command(data.command),
    chat_command_signed: (data) => command(data.command),
    chat: (data) => chat(data.message)
  })
}

function cutText (text) {
  if (typeof text === 'string') return text.length > MAX_SENT_CHARS ? text.slice(0, MAX_SENT_CHARS - 3) + '...' : text
  if (text && typeof text === 'object' && typeof text.text === 'string' && text.text.length > MAX_SENT_CHARS) {
    return { ...text, text: cutText(text.text) }
  }
  return text
}

// Wrap `object[name]` as it is now, and whatever is assigned to it later (flying-squid's chat plugin assigns these;
// whether before or after ours depends on its loading order).
function wrapNowAndLater (object, name, wrap) {
  let wrapped = typeof object[name] === 'function' ? wrap(object[name]) : object[name]
  Object.defineProperty(object, name, {
    configurable: true,
    get: () => wrapped,
    set: (original) => { wrapped = wrap(original) }
  })
}
