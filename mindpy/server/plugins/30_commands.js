'use strict'
// Operator commands that world set-up uses, with vanilla syntax and replies: /setblock and /fill here,
// players and entities in 31_entity_commands.js, time and weather in 32_world_commands.js.
// flying-squid lacks /fill, sets blocks to their lowest state id instead of the default one (a door
// placed by /setblock came out open), takes no block states, and prints every reply in red.
// The parsing shared by these commands (block states, coordinates, selectors) is serv.mindpyCommands.

const { Vec3 } = require('vec3')

const FILL_LIMIT = 32768
const WORLD_MIN_Y = -64 // the overworld since 1.18 (our flat world, and every version the server accepts)
const WORLD_MAX_Y = 319
const CONSOLE_ORIGIN = new Vec3(0.5, -60, 0.5) // vanilla's console runs commands from the world spawn

module.exports.server = function (serv) {
  // every mindpy plugin registers its commands on 'pluginsReady': more than Node's default warning limit
  serv.setMaxListeners(Math.max(serv.getMaxListeners(), 50))
  const registry = serv.registry
  const Block = require('prismarine-block')(registry)
  const UserError = require('flying-squid').UserError

  // "oak_door[half=upper,facing=east]" -> {stateId, name}; unnamed properties keep their default values
  function parseBlockState (text) {
    const match = text.match(/^(?:minecraft:)?([a-z0-9_]+)(?:\[(.*)\])?$/)
    if (!match) throw new UserError(`Invalid block '${text}'`)
    const block = registry.blocksByName[match[1]]
    if (!block) throw new UserError(`Unknown block type '${match[1]}'`)
    const properties = Block.fromStateId(block.defaultState, 0).getProperties()
    for (const pair of (match[2] || '').split(',').filter(Boolean)) {
      const [name, value] = pair.split('=').map(s => s.trim())
      if (!(name in properties)) throw new UserError(`Block ${block.name} has no property '${name}'`)
      properties[name] = value === 'true' ? true : value === 'false' ? false : (isNaN(+value) ? value : +value)
    }
    const state = Block.fromProperties(block.name, properties, 0)
    if (state.stateId === undefined || Number.isNaN(state.stateId)) throw new UserError(`Invalid block state '${text}'`)
    return { stateId: state.stateId, name: block.name }
  }

  // One coordinate: absolute, or ~relative to `base`. `centre` adds 0.5 to whole absolute numbers, as
  // vanilla does for the x and z of a teleport.
  function coordinate (text, base, centre = false) {
    if (text.startsWith('~')) {
      const offset = text.length > 1 ? Number(text.slice(1)) : 0
      if (!Number.isFinite(offset)) throw new UserError(`Invalid coordinate '${text}'`)
      return base + offset
    }
    const n = Number(text)
    if (text === '' || !Number.isFinite(n)) throw new UserError(`Invalid coordinate '${text}'`)
    return centre && !text.includes('.') ? n + 0.5 : n
  }

  const originOf = ctx => (ctx.player ? ctx.player.position : CONSOLE_ORIGIN)
  const worldOf = ctx => (ctx.player ? ctx.player.world : serv.overworld)

  function blockPosition (args, ctx) {
    const o = originOf(ctx)
    const pos = new Vec3(coordinate(args[0], o.x), coordinate(args[1], o.y), coordinate(args[2], o.z)).floored()
    if (pos.y < WORLD_MIN_Y || pos.y > WORLD_MAX_Y) throw new UserError('That position is out of this world!')
    return pos
  }

  // A vanilla selector: @a @p @s @e @r with [type=..,name=..,distance=..N,limit=N], or a player name.
  function select (text, ctx) {
    const origin = originOf(ctx)
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
    if (args.type) {
      const negate = args.type.startsWith('!')
      const wanted = args.type.replace(/^!/, '').replace(/^minecraft:/, '')
      pool = pool.filter(e => (typeOf(e) === wanted) !== negate)
    }
    if (args.name) pool = pool.filter(e => (e.username || e.name) === args.name)
    if (args.distance) {
      const [lo, hi] = args.distance.includes('..')
        ? args.distance.split('..').map(s => (s === '' ? undefined : Number(s)))
        : [Number(args.distance), Number(args.distance)]
      pool = pool.filter(e => {
        const d = e.position.distanceTo(origin)
        return (lo === undefined || d >= lo) && (hi === undefined || d <= hi)
      })
    }
    pool = pool.filter(e => !(e.type === 'player' && kind === 'p' && e.health <= 0))
    pool.sort((a, b) => a.position.distanceTo(origin) - b.position.distanceTo(origin))
    if (kind === 'p') pool = pool.slice(0, 1)
    if (kind === 'r') pool = pool.length ? [pool[Math.floor(Math.random() * pool.length)]] : []
    if (args.limit) pool = pool.slice(0, Number(args.limit))
    return pool
  }

  // What vanilla calls an entity in replies: the player's name, or the type's display name ("Cow").
  function typeOf (entity) {
    if (entity.type === 'player') return 'player'
    if (entity.itemId !== undefined) return 'item'
    return entity.name
  }
  function displayName (entity) {
    if (entity.type === 'player') return entity.username
    if (entity.itemId !== undefined) return registry.items[entity.itemId]?.displayName || 'Item'
    return registry.entitiesByName[entity.name]?.displayName || entity.name
  }

  serv.mindpyCommands = { parseBlockState, coordinate, blockPosition, originOf, worldOf, select, typeOf, displayName, UserError }

  // Replace a block; with `destroy`, drop what the old block would drop when mined (see 41_block_loot.js).
  async function setBlock (world, pos, stateId, destroy = false) {
    if (destroy) {
      const old = await world.getBlock(pos)
      if (old && old.name !== 'air' && serv.mindpyDropBlockLoot) serv.mindpyDropBlockLoot(world, pos, old, null)
    }
    await serv.setBlock(world, pos, stateId)
  }

  // Set every block of the box min..max to choose(currentStateId, onTheEdge) (null: leave it), column by
  // column, and tell the players in one multi_block_change packet per chunk section. Going through
  // serv.setBlock instead sends a packet per block and queues neighbour updates in a list that is sorted
  // again for every block: a 32x32x32 fill took 25 s and stalled the server.
  async function fillRegion (world, min, max, destroy, choose) {
    const sections = new Map()
    let changed = 0
    for (let cx = min.x >> 4; cx <= max.x >> 4; cx++) {
      for (let cz = min.z >> 4; cz <= max.z >> 4; cz++) {
        const column = await world.getColumn(cx, cz)
        let columnChanged = false
        for (let x = Math.max(min.x, cx * 16); x <= Math.min(max.x, cx * 16 + 15); x++) {
          for (let z = Math.max(min.z, cz * 16); z <= Math.min(max.z, cz * 16 + 15); z++) {
            for (let y = min.y; y <= max.y; y++) {
              const local = new Vec3(x & 15, y, z & 15)
              const current = column.getBlockStateId(local)
              const edge = x === min.x || x === max.x || y === min.y || y === max.y || z === min.z || z === max.z
              const target = choose(current, edge, x, y, z)
              if (target === null || target === current) continue // vanilla counts only blocks that changed
              if (destroy && current !== 0 && serv.mindpyDropBlockLoot) {
                serv.mindpyDropBlockLoot(world, new Vec3(x, y, z), Block.fromStateId(current, 0), null)
              }
              column.setBlockStateId(local, target)
              columnChanged = true
              changed++
              const key = `${cx},${y >> 4},${cz}`
              if (!sections.has(key)) sections.set(key, { x: cx, y: y >> 4, z: cz, records: [] })
              sections.get(key).records.push(target * 4096 + (((x & 15) << 8) | ((z & 15) << 4) | (y & 15)))
            }
          }
        }
        if (columnChanged) world.saveAt(new Vec3(cx * 16, 0, cz * 16))
      }
    }
    const players = serv.players.filter(p => p.world === world)
    for (const { x, y, z, records } of sections.values()) {
      const packet = { chunkCoordinates: { x, y, z }, suppressLightUpdates: false, notTrustEdges: false, records }
      for (const player of players) player._client.write('multi_block_change', packet)
    }
    return changed
  }

  // fillRegion writes chunk columns directly, past the watch that drops a container's items when its block
  // goes: forget the containers in the box whose block is no longer theirs (their items gone, as in vanilla).
  async function forgetReplacedContainers (world, min, max) {
    const containers = serv.mindpyBlockContainers
    if (!containers) return
    for (const container of [...containers.all()]) {
      const p = container.position
      if (container.world !== world || p.x < min.x || p.y < min.y || p.z < min.z || p.x > max.x || p.y > max.y || p.z > max.z) continue
      const block = await world.getBlock(p)
      if (!block || block.name !== container.kind) containers.forgetInBox(world, p, p)
    }
  }

  // Set the blocks of a box that choose(currentStateId, onTheEdge, x, y, z) names (null: leave it), for plugins
  // that change many blocks at once (explosions, 46_mob_attacks.js); containers replaced lose their contents.
  serv.mindpySetBlocksInBox = async (world, min, max, choose) => {
    const changed = await fillRegion(world, min, max, false, choose)
    if (changed) await forgetReplacedContainers(world, min, max)
    return changed
  }

  const splitArgs = str => str.trim().split(/\s+/).filter(Boolean)

  function register () {
    serv.commands.add({
      base: 'setblock',
      info: 'Set a block',
      usage: '/setblock <x> <y> <z> <block>[states] [replace|keep|destroy]',
      op: true,
      parse: str => { const a = splitArgs(str); return a.length >= 4 && a.length <= 5 ? a : false },
      async action (args, ctx) {
        const pos = blockPosition(args, ctx)
        const { stateId } = parseBlockState(args[3])
        const mode = args[4] || 'replace'
        if (!['replace', 'keep', 'destroy'].includes(mode)) throw new UserError(`Unknown mode '${mode}'`)
        const world = worldOf(ctx)
        const current = await world.getBlockStateId(pos)
        if (current === stateId || (mode === 'keep' && current !== 0)) throw new UserError('Could not set the block')
        await setBlock(world, pos, stateId, mode === 'destroy')
        return `Changed the block at ${pos.x}, ${pos.y}, ${pos.z}`
      }
    })

    serv.commands.add({
      base: 'fill',
      info: 'Fill a region with a block',
      usage: '/fill <x1> <y1> <z1> <x2> <y2> <z2> <block>[states] [replace [filter]|keep|hollow|outline|destroy]',
      op: true,
      parse: str => { const a = splitArgs(str); return a.length >= 7 ? a : false },
      async action (args, ctx) {
        const a = blockPosition(args.slice(0, 3), ctx)
        const b = blockPosition(args.slice(3, 6), ctx)
        const { stateId } = parseBlockState(args[6])
        const mode = args[7] || 'replace'
        if (!['replace', 'keep', 'hollow', 'outline', 'destroy'].includes(mode)) throw new UserError(`Unknown mode '${mode}'`)
        const filter = mode === 'replace' && args[8] ? parseBlockState(args[8]).name : null
        const min = new Vec3(Math.min(a.x, b.x), Math.min(a.y, b.y), Math.min(a.z, b.z))
        const max = new Vec3(Math.max(a.x, b.x), Math.max(a.y, b.y), Math.max(a.z, b.z))
        const volume = (max.x - min.x + 1) * (max.y - min.y + 1) * (max.z - min.z + 1)
        if (volume > FILL_LIMIT) throw new UserError(`Too many blocks in the specified area (maximum ${FILL_LIMIT}, specified ${volume})`)
        const air = registry.blocksByName.air.defaultState
        const world = worldOf(ctx)
        const changed = await fillRegion(world, min, max, mode === 'destroy', (current, edge) => {
          if (mode === 'outline' && !edge) return null
          if (mode === 'keep' && current !== air) return null
          if (filter && registry.blocksByStateId[current]?.name !== filter) return null
          return mode === 'hollow' && !edge ? air : stateId
        })
        if (changed) await forgetReplacedContainers(world, min, max)
        if (!changed) throw new UserError('No blocks were filled')
        return `Successfully filled ${changed} block(s)`
      }
    })
  }

  serv.once('pluginsReady', register)
}

// Replies: vanilla shows a command's feedback in the normal colour and only errors in red. flying-squid
// shows everything in red, and at 1.20.3+ (NBT chat) its colour codes arrive as literal text ("&cError").
const FAILURE = /^(Usage: |Bad syntax|Command not found|You do not have permission|This command is)/

module.exports.player = function (player, serv) {
  const nbt = require('prismarine-nbt')

  function tell (text, isError) {
    if (!serv.supportFeature('signedChat')) return player.chat((isError ? serv.color.red : '') + text)
    const component = serv.supportFeature('chatPacketsUseNbtComponents')
      ? nbt.comp(isError ? { text: nbt.string(text), color: nbt.string('red') } : { text: nbt.string(text) })
      : JSON.stringify(isError ? { text, color: 'red' } : { text })
    player._client.write('system_chat', { content: component, type: 1, isActionBar: false })
  }

  player.handleCommand = async (str) => {
    try {
      const res = await serv.commands.use(str, { player }, player.op)
      if (res) tell(res, FAILURE.test(res))
    } catch (err) {
      if (err.userError) tell(err.message, true)
      else setTimeout(() => { throw err }, 0)
    }
  }
}
