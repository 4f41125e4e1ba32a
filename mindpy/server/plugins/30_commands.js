'use strict'
// Operator commands that world set-up uses, with vanilla syntax: /setblock (block states, replace|keep|
// destroy), /fill (replace [filter]|keep|hollow|outline|destroy), /clear, /kill with selectors, /summon for
// animals (see 40_animals.js), /tp relative coordinates. flying-squid lacks /fill and /clear, sets blocks to
// their lowest state id instead of the default one, and cannot select items or animals.

const { Vec3 } = require('vec3')

const FILL_LIMIT = 32768

module.exports.server = function (serv) {
  const registry = serv.registry
  const Block = require('prismarine-block')(registry)
  const UserError = require('flying-squid').UserError

  // "oak_door[half=upper,facing=east]" -> state id (unspecified properties keep their default values)
  function parseBlockState (text) {
    const match = text.match(/^(?:minecraft:)?([a-z0-9_]+)(?:\[(.*)\])?$/)
    if (!match) throw new UserError(`Invalid block '${text}'`)
    const block = registry.blocksByName[match[1]]
    if (!block) throw new UserError(`Unknown block type '${match[1]}'`)
    const properties = Block.fromStateId(block.defaultState, 0).getProperties()
    for (const pair of (match[2] || '').split(',').filter(Boolean)) {
      const [name, value] = pair.split('=').map(s => s.trim())
      if (!(name in properties)) throw new UserError(`Block ${match[1]} has no property '${name}'`)
      properties[name] = value === 'true' ? true : value === 'false' ? false : (isNaN(+value) ? value : +value)
    }
    const state = Block.fromProperties(block.name, properties, 0)
    return { stateId: state.stateId, name: block.name }
  }
  serv.mindpyParseBlockState = parseBlockState

  function coordinate (text, base) {
    if (text.startsWith('~')) return Math.floor(base + Number(text.slice(1) || 0))
    const n = Number(text)
    if (!Number.isFinite(n)) throw new UserError(`Invalid coordinate '${text}'`)
    return Math.floor(n)
  }

  function position (args, ctx) {
    const base = ctx.player ? ctx.player.position : new Vec3(0, -60, 0)
    return new Vec3(coordinate(args[0], base.x), coordinate(args[1], base.y), coordinate(args[2], base.z))
  }

  const worldOf = ctx => (ctx.player ? ctx.player.world : serv.overworld)

  async function setBlock (world, pos, stateId, destroy = false) {
    if (destroy) {
      const old = await world.getBlock(pos)
      if (old && old.name !== 'air' && serv.mindpyDropBlockLoot) serv.mindpyDropBlockLoot(world, pos, old)
    }
    await serv.setBlock(world, pos, stateId)
  }

  function register () {
    serv.commands.add({
      base: 'setblock',
      info: 'Set a block',
      usage: '/setblock <x> <y> <z> <block>[states] [replace|keep|destroy]',
      op: true,
      parse: str => { const a = str.trim().split(/\s+/); return a.length >= 4 ? a : false },
      async action (args, ctx) {
        const pos = position(args, ctx)
        const { stateId } = parseBlockState(args[3])
        const mode = args[4] || 'replace'
        const world = worldOf(ctx)
        if (mode === 'keep' && (await world.getBlockStateId(pos)) !== 0) return 'Could not set the block'
        await setBlock(world, pos, stateId, mode === 'destroy')
        return `Changed the block at ${pos.x}, ${pos.y}, ${pos.z}`
      }
    })

    serv.commands.add({
      base: 'fill',
      info: 'Fill a region with a block',
      usage: '/fill <x1> <y1> <z1> <x2> <y2> <z2> <block>[states] [replace [filter]|keep|hollow|outline|destroy]',
      op: true,
      parse: str => { const a = str.trim().split(/\s+/); return a.length >= 7 ? a : false },
      async action (args, ctx) {
        const a = position(args.slice(0, 3), ctx)
        const b = position(args.slice(3, 6), ctx)
        const { stateId } = parseBlockState(args[6])
        const mode = args[7] || 'replace'
        const filter = mode === 'replace' && args[8] ? parseBlockState(args[8]).name : null
        const min = new Vec3(Math.min(a.x, b.x), Math.min(a.y, b.y), Math.min(a.z, b.z))
        const max = new Vec3(Math.max(a.x, b.x), Math.max(a.y, b.y), Math.max(a.z, b.z))
        const volume = (max.x - min.x + 1) * (max.y - min.y + 1) * (max.z - min.z + 1)
        if (volume > FILL_LIMIT) throw new UserError(`Too many blocks in the specified area (maximum ${FILL_LIMIT}, specified ${volume})`)
        const world = worldOf(ctx)
        const air = registry.blocksByName.air.defaultState
        let changed = 0
        for (let x = min.x; x <= max.x; x++) {
          for (let y = min.y; y <= max.y; y++) {
            for (let z = min.z; z <= max.z; z++) {
              const pos = new Vec3(x, y, z)
              const edge = x === min.x || x === max.x || y === min.y || y === max.y || z === min.z || z === max.z
              let target = stateId
              if ((mode === 'hollow' || mode === 'outline') && !edge) {
                if (mode === 'outline') continue
                target = air
              }
              const current = await world.getBlockStateId(pos)
              if (mode === 'keep' && current !== 0) continue
              if (filter && registry.blocksByStateId[current]?.name !== filter) continue
              if (current === target) continue
              await setBlock(world, pos, target, mode === 'destroy')
              changed++
            }
          }
        }
        return `Successfully filled ${changed} block(s)`
      }
    })

    serv.commands.add({
      base: 'clear',
      info: "Clear items from a player's inventory",
      usage: '/clear [player] [item] [maxCount]',
      op: true,
      parse: str => str.trim().split(/\s+/).filter(Boolean),
      action (args, ctx) {
        const players = args[0] ? selectEntities(args[0], ctx).filter(e => e.type === 'player') : (ctx.player ? [ctx.player] : [])
        if (!players.length) throw new UserError('No player was found')
        const itemName = args[1] ? args[1].replace(/^minecraft:/, '') : null
        if (itemName && !registry.itemsByName[itemName]) throw new UserError(`Unknown item '${args[1]}'`)
        let limit = args[2] !== undefined ? Number(args[2]) : Infinity
        let removed = 0
        for (const player of players) {
          for (let slot = 0; slot < player.inventory.slots.length; slot++) {
            const item = player.inventory.slots[slot]
            if (!item || (itemName && item.name !== itemName) || limit <= 0) continue
            const take = Math.min(item.count, limit)
            limit -= take
            removed += take
            const left = item.count - take
            player.inventory.updateSlot(slot, left > 0 ? Object.assign(item, { count: left }) : null)
          }
        }
        return removed ? `Removed ${removed} item(s) from ${players.map(p => p.username).join(', ')}` : 'No items were found'
      }
    })

    serv.commands.add({
      base: 'kill',
      info: 'Kill entities',
      usage: '/kill [targets]',
      op: true,
      parse: str => str.trim() || '@s',
      action (selector, ctx) {
        const targets = selectEntities(selector, ctx)
        if (!targets.length) throw new UserError('No entity was found')
        for (const entity of targets) {
          if (entity.itemId !== undefined && entity.type !== 'player') entity.destroy()
          else entity.takeDamage({ damage: 1000, animation: true })
        }
        return targets.length === 1 ? `Killed ${targets[0].username || targets[0].name}` : `Killed ${targets.length} entities`
      }
    })
  }

  // A small vanilla selector: @a @p @s @e @r with [type=..,name=..,distance=..N,limit=N], or a player name.
  function selectEntities (text, ctx) {
    const origin = ctx.player ? ctx.player.position : new Vec3(0, -60, 0)
    const match = text.match(/^@([apesr])(?:\[(.*)\])?$/)
    if (!match) {
      const player = serv.getPlayer(text)
      return player ? [player] : []
    }
    const [, kind, rawArgs] = match
    let pool = kind === 'e' ? Object.values(serv.entities) : serv.players.slice()
    if (kind === 's') pool = ctx.player ? [ctx.player] : []
    const args = {}
    for (const pair of (rawArgs || '').split(',').filter(Boolean)) {
      const [k, v] = pair.split('=').map(s => s.trim())
      args[k] = v
    }
    const typeOf = e => (e.type === 'player' ? 'player' : e.itemId !== undefined ? 'item' : e.name)
    if (args.type) {
      const negate = args.type.startsWith('!')
      const wanted = args.type.replace(/^!/, '').replace(/^minecraft:/, '')
      pool = pool.filter(e => (typeOf(e) === wanted) !== negate)
    }
    if (args.name) pool = pool.filter(e => (e.username || e.name) === args.name)
    if (args.distance) {
      const [lo, hi] = args.distance.split('..').map(s => (s === '' ? undefined : Number(s)))
      pool = pool.filter(e => {
        const d = e.position.distanceTo(origin)
        return (lo === undefined || d >= lo) && (hi === undefined || d <= hi)
      })
    }
    pool.sort((a, b) => a.position.distanceTo(origin) - b.position.distanceTo(origin))
    if (kind === 'p') pool = pool.slice(0, 1)
    if (kind === 'r') pool = pool.length ? [pool[Math.floor(Math.random() * pool.length)]] : []
    if (args.limit) pool = pool.slice(0, Number(args.limit))
    return pool
  }
  serv.mindpySelect = selectEntities

  serv.once('pluginsReady', register)
}
