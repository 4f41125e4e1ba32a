'use strict'
// Commands from one sender run one after another, as on a vanilla server. flying-squid starts each command
// as soon as its packet arrives, so a set-up that sends `/setblock X Y Z furnace` and at once
// `/data merge block X Y Z {...}` had the second read the block before the first had set it (9 times in 20).
// A command that itself runs a command for the same sender (e.g. /night runs /time set) runs at once.

const { AsyncLocalStorage } = require('async_hooks')

module.exports.server = function (serv) {
  const running = new AsyncLocalStorage() // the sender whose command is running in this async context
  const lastOf = new Map() // sender -> promise settled when its last queued command has finished
  const use = serv.commands.use.bind(serv.commands)

  serv.commands.use = (command, ctx = {}, op) => {
    const sender = ctx.player || serv
    if (running.getStore() === sender) return use(command, ctx, op)
    const previous = lastOf.get(sender) || Promise.resolve()
    const result = previous.then(() => running.run(sender, () => use(command, ctx, op)))
    const settled = result.catch(() => {})
    lastOf.set(sender, settled)
    settled.then(() => { if (lastOf.get(sender) === settled) lastOf.delete(sender) })
    return result
  }
}
