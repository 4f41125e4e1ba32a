'use strict'
// Operator commands on players and entities, with vanilla syntax and replies: /clear, /tp (/teleport),
// /kill, /gamemode. flying-squid has no /clear; its /tp works for players only, adds 0.5 to y and moves
// each target relative to itself; its /kill cannot select items or animals; its replies differ.
// /summon is in 40_animals.js.

const { Vec3 } = require('vec3')

const GAME_MODES = ['survival', 'creative', 'adventure', 'spectator']
const capitalised = word => word[0].toUpperCase() + word.slice(1)
const splitArgs = str => str.trim().split(/\s+/).filter(Boolean)

module.exports.server = function (serv) {
  const registry = serv.registry

  function register () {
    const { coordinate, originOf, select, displayName, UserError } = serv.mindpyCommands

    function players (selector, ctx) {
      const found = selector ? select(selector, ctx).filter(e => e.type === 'player') : (ctx.player ? [ctx.player] : [])
      if (!found.length) throw new UserError(selector ? `No player was found named ${selector}` : 'No player was found')
      return found
    }

    serv.commands.add({
      base: 'clear',
      info: "Clear items from a player's inventory",
      usage: '/clear [player] [item] [maxCount]',
      op: true,
      parse: splitArgs,
      action (args, ctx) {
        const targets = players(args[0], ctx)
        const itemName = args[1] ? args[1].replace(/^minecraft:/, '') : null
        if (itemName && !registry.itemsByName[itemName]) throw new UserError(`Unknown item '${args[1]}'`)
        const maxCount = args[2] === undefined ? Infinity : Number(args[2])
        if (!(maxCount >= 0)) throw new UserError(`Invalid count '${args[2]}'`)
        let removed = 0
        for (const player of targets) {
          let limit = maxCount
          const slots = player.inventory.slots
          for (let slot = 0; slot < slots.length && limit > 0; slot++) {
            const item = slots[slot]
            if (!item || (itemName && item.name !== itemName)) continue
            const take = Math.min(item.count, limit)
            limit -= take
            removed += take
            player.inventory.updateSlot(slot, take < item.count ? Object.assign(item, { count: item.count - take }) : null)
          }
        }
        const who = targets.length === 1 ? `player ${targets[0].username}` : `${targets.length} players`
        if (!removed) throw new UserError(`No items were found on ${who}`)
        return `Removed ${removed} item(s) from ${who}`
      }
    })

    // /tp <destination> | <x y z> | <targets> <destination> | <targets> <x y z> [yaw pitch]
    serv.commands.add({
      base: 'teleport',
      aliases: ['tp'],
      info: 'Teleport entities',
      usage: '/tp [targets] <destination player | x y z>',
      op: true,
      parse: str => { const a = splitArgs(str); return a.length >= 1 && a.length <= 6 ? a : false },
      action (args, ctx) {
        const looksLikeCoordinate = s => /^~?-?[0-9.]*$/.test(s) && s !== ''
        let targets
        let rest
        if (args.length === 1 || (args.length === 3 && args.every(looksLikeCoordinate))) {
          if (!ctx.player) throw new UserError('A target is needed when the console teleports')
          targets = [ctx.player]
          rest = args
        } else {
          targets = select(args[0], ctx)
          if (!targets.length) throw new UserError(`No player was found named ${args[0]}`)
          rest = args.slice(1)
        }
        const many = targets.length === 1 ? displayName(targets[0]) : `${targets.length} entities`
        if (rest.length === 1) {
          const destination = select(rest[0], ctx)[0]
          if (!destination) throw new UserError(`No entity was found named ${rest[0]}`)
          for (const target of targets) target.teleport(destination.position.clone())
          return `Teleported ${many} to ${displayName(destination)}`
        }
        if (rest.length !== 3 && rest.length !== 5) throw new UserError('Usage: /tp [targets] <destination player | x y z>')
        const o = originOf(ctx) // relative coordinates count from the one who runs the command, as in vanilla
        const to = new Vec3(coordinate(rest[0], o.x, true), coordinate(rest[1], o.y), coordinate(rest[2], o.z, true))
        if (Math.abs(to.x) > 29999999 || Math.abs(to.z) > 29999999 || to.y < -20000000 || to.y > 20000000) throw new UserError('Invalid position for teleport')
        for (const target of targets) target.teleport(to.clone())
        const f = n => n.toFixed(6)
        return `Teleported ${many} to ${f(to.x)}, ${f(to.y)}, ${f(to.z)}`
      }
    })

    serv.commands.add({
      base: 'kill',
      info: 'Kill entities',
      usage: '/kill [targets]',
      op: true,
      parse: str => str.trim() || '@s',
      action (selector, ctx) {
        const targets = select(selector, ctx)
        if (!targets.length) throw new UserError('No entity was found')
        for (const entity of targets) {
          if (entity.itemId !== undefined && entity.type !== 'player') entity.destroy()
          else entity.takeDamage({ damage: Math.max(entity.health, 1), animation: true, unblockable: true })
        }
        return targets.length === 1 ? `Killed ${displayName(targets[0])}` : `Killed ${targets.length} entities`
      }
    })

    serv.commands.add({
      base: 'gamemode',
      aliases: ['gm'],
      info: 'Set a game mode',
      usage: '/gamemode <survival|creative|adventure|spectator> [targets]',
      op: true,
      parse: str => { const a = splitArgs(str); return a.length >= 1 && a.length <= 2 ? a : false },
      action ([modeText, selector], ctx) {
        const mode = /^[0-3]$/.test(modeText) ? Number(modeText) : GAME_MODES.indexOf(modeText)
        if (mode < 0) throw new UserError(`Unknown game mode '${modeText}'`)
        const targets = players(selector, ctx)
        for (const player of targets) player.setGameMode(mode)
        const name = capitalised(GAME_MODES[mode])
        if (targets.length === 1 && targets[0] === ctx.player) return `Set own game mode to ${name} Mode`
        if (targets.length === 1) return `Set ${targets[0].username}'s game mode to ${name} Mode`
        return `Set the game mode of ${targets.length} players to ${name} Mode`
      }
    })
  }

  serv.once('pluginsReady', register)
}
