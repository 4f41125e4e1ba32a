'use strict'
// Private messages: /tell, /msg and /w, as vanilla. flying-squid has none. The receiver sees
// "NAME whispers to you: MESSAGE" (the text clients and mineflayer's whisper event recognise), the
// sender sees "You whisper to NAME: MESSAGE".

module.exports.server = function (serv) {
  const UserError = require('flying-squid').UserError

  function register () {
    for (const base of ['tell', 'msg', 'w']) {
      serv.commands.add({
        base,
        info: 'Send a private message to a player',
        usage: `/${base} <player> <message>`,
        op: false,
        parse: str => {
          const match = str.match(/^(\S+)\s+(.+)$/)
          return match ? { name: match[1], message: match[2] } : false
        },
        action ({ name, message }, ctx) {
          const target = serv.getPlayer(name)
          if (!target) throw new UserError('No player was found')
          const sender = ctx.player ? ctx.player.username : 'Server'
          target.chat(`${sender} whispers to you: ${message}`)
          return `You whisper to ${target.username}: ${message}`
        }
      })
    }
  }

  serv.once('pluginsReady', register)
}
