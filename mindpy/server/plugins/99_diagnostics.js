'use strict'
// Diagnostics for operators: `/mindpy_fail` makes a plugin throw outside any handler, to check that the
// server logs it and keeps running (a broken plugin must not take the world down).

module.exports.server = function (serv) {
  serv.once('pluginsReady', () => {
    serv.commands.add({
      base: 'mindpy_fail',
      info: 'Throw an error from a plugin (the server must log it and keep running)',
      usage: '/mindpy_fail',
      op: true,
      action () {
        setTimeout(() => { throw new Error('mindpy_fail: deliberate plugin error') }, 0)
        Promise.reject(new Error('mindpy_fail: deliberate rejected promise'))
        return 'Threw two errors from a plugin'
      }
    })
  })
}
