'use strict'
// The last check before a bot's chat goes out. mineflayer sends a message that starts with "/" whole, as a command,
// and cuts any other at '\n' and every `limit` UTF-16 code units, sending each piece that starts with "/" as a
// command; servers may trim spaces first, and kick a player whose chat holds "§" or a control character. Python
// (mindpy/bridge/plain_chat.py) cuts and escapes text into pieces that pass these checks; a list holding one that
// does not is refused whole, and nothing of it is sent.

const CHAT_LIMIT = 256
const OLD_CHAT_LIMIT = 100
const REFUSED_CHARACTERS = /[\u0000-\u001f\u007f\u00a7]/ // eslint-disable-line no-control-regex
const COMMAND_START = /^[\s\u0000-\u0020\u007f-\u00a0]*\// // eslint-disable-line no-control-regex
const PLAYER_NAME = /^[\p{L}\p{N}_]{1,16}$/u // as mindpy.bridge.plain_chat.check_player_name

// UTF-16 code units of one chat message, as mineflayer's chat plugin counts them (mindpy sets no chatLengthLimit).
function chatLimit (bot) {
  return bot.supportFeature('lessCharsInChat') ? OLD_CHAT_LIMIT : CHAT_LIMIT
}

// Why `piece` cannot go out as one plain chat message of at most `limit` units; null when it can.
function problemWith (piece, limit) {
  if (typeof piece !== 'string' || piece.length === 0) return 'is empty or not text'
  if (piece.length > limit) return `holds ${piece.length} UTF-16 code units, over the ${limit} of one message`
  if (REFUSED_CHARACTERS.test(piece)) return 'holds a line break, a control character or "§"'
  if (COMMAND_START.test(piece)) return 'starts with "/", which would run as a server command'
  return null
}

function checkedPieces (piecesJson, limit, what) {
  const pieces = JSON.parse(piecesJson)
  if (!Array.isArray(pieces)) throw new Error(`${what}: expected a list of pieces`)
  pieces.forEach((piece, i) => {
    const problem = problemWith(piece, limit)
    if (problem) throw new Error(`${what} not sent: its piece ${i + 1} ${problem}`)
  })
  return pieces
}

// Say each piece (JSON list of strings) as one chat message; returns how many were said.
function chatPlain (bot, piecesJson) {
  const pieces = checkedPieces(piecesJson, chatLimit(bot), 'chat')
  for (const piece of pieces) bot.chat(piece)
  return pieces.length
}

// Whisper each piece to `username` (mineflayer sends "/tell username piece").
function whisperPlain (bot, username, piecesJson) {
  if (typeof username !== 'string' || !PLAYER_NAME.test(username)) {
    throw new Error(`whisper not sent: ${JSON.stringify(String(username)).slice(0, 40)} is not a player's name`)
  }
  const header = `/tell ${username} `
  const pieces = checkedPieces(piecesJson, chatLimit(bot) - header.length, 'whisper')
  for (const piece of pieces) bot.whisper(username, piece)
  return pieces.length
}

module.exports = { CHAT_LIMIT, OLD_CHAT_LIMIT, chatLimit, problemWith, chatPlain, whisperPlain }
