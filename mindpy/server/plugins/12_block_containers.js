'use strict'
// Blocks that hold items (chests, barrels, furnaces...): their contents by position while the server runs,
// thrown on the ground when the block is broken or replaced (as in vanilla), and the vanilla set-up commands
//   /data merge block X Y Z {Items:[{Slot:0b,id:"minecraft:coal",count:8}]}   (replaces the contents)
//   /data get block X Y Z                                                   (shows them)
//   /data get entity <player>|@s Inventory                                  (a player's inventory, as vanilla shows it)
//
// Plugins declare their kinds: serv.mindpyBlockContainers.define(blockName, size), then
// containerAt(world, position, blockName) gives the container there ({kind, slots, viewers, ...}), and
// changed(container) updates the windows of the players looking into it. Code that writes blocks without
// the world's setters calls forgetInBox(world, fromVec3, toVec3).

const { Vec3 } = require('vec3')
const path = require('path')
const { itemEntries } = require(path.join(__dirname, '..', 'js', 'lib', 'snbt.js'))

module.exports.server = function (serv) {
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)
  const UserError = require('flying-squid').UserError
  const sizes = new Map() // block name -> number of slots
  const byWorld = new Map() // world -> Map("x,y,z" -> container)

  const key = pos => `${pos.x},${pos.y},${pos.z}`
  const containersOf = world => byWorld.get(world) || byWorld.set(world, new Map()).get(world)

  function containerAt (world, position, blockName) {
    const here = containersOf(world)
    const pos = new Vec3(Math.floor(position.x), Math.floor(position.y), Math.floor(position.z))
    let container = here.get(key(pos))
    if (!container || container.kind !== blockName) {
      if (container) spill(container)
      container = { kind: blockName, world, position: pos, slots: new Array(sizes.get(blockName)).fill(null), viewers: new Set() }
      here.set(key(pos), container)
    }
    return container
  }

  function changed (container, exceptPlayer = null) {
    for (const player of container.viewers) if (player !== exceptPlayer) player.mindpyRefreshWindow()
  }

  // The block is gone: its items fall out and whoever was looking into it sees the window close.
  function spill (container) {
    containersOf(container.world).delete(key(container.position))
    for (const player of [...container.viewers]) player.mindpyCloseWindow()
    const centre = container.position.offset(0.5, 0.5, 0.5)
    for (const item of container.slots) {
      if (!item) continue
      const velocity = new Vec3(Math.random() - 0.5, 2, Math.random() - 0.5)
      serv.mindpyDropItem(container.world, centre, item, { velocity, pickupDelay: 500 })
    }
    container.slots.fill(null)
  }

  // For code that writes blocks without the world's setters (a fast /fill writes chunk columns directly):
  // forget the containers in a box, their items gone, as vanilla's /fill replace does.
  function forgetInBox (world, from, to) {
    const [min, max] = [from.min(to), from.max(to)]
    for (const container of [...containersOf(world).values()]) {
      const p = container.position
      if (p.x < min.x || p.y < min.y || p.z < min.z || p.x > max.x || p.y > max.y || p.z > max.z) continue
      container.slots.fill(null)
      spill(container)
    }
  }

  serv.mindpyBlockContainers = {
    define: (blockName, size) => { if (registry.blocksByName[blockName]) sizes.set(blockName, size) },
    defines: blockName => sizes.has(blockName),
    containerAt,
    changed,
    forgetInBox,
    all: function * () { for (const here of byWorld.values()) yield * here.values() }
  }

  // Every block change goes through the world's setters (digging, /setblock, /fill, placing): watch them
  // for the positions that hold a container.
  function watch (world) {
    for (const setter of ['setBlockStateId', 'setBlockType', 'setBlock']) {
      const original = world[setter].bind(world)
      world[setter] = async (position, value) => {
        const result = await original(position, value)
        const container = byWorld.get(world)?.get(key(position))
        if (container) {
          const block = await world.getBlock(position)
          if (!block || block.name !== container.kind) spill(container)
        }
        return result
      }
    }
  }

  serv.once('pluginsReady', () => {
    for (const world of [serv.overworld, serv.netherworld].filter(Boolean)) watch(world)
    registerDataCommand()
  })

  // ---- /data ----------------------------------------------------------------------------------------
  function registerDataCommand () {
    serv.commands.add({
      base: 'data',
      info: 'Set or show the items of a container block (chest, barrel, furnace, smoker, blast furnace) or show a player\'s inventory',
      usage: '/data merge block <x> <y> <z> {Items:[{Slot:0b,id:"minecraft:coal",count:8}]} | /data get block <x> <y> <z> | /data get entity <player> Inventory',
      op: true,
      parse (args) {
        const merge = args.match(/^merge\s+block\s+(\S+)\s+(\S+)\s+(\S+)\s+(\{.*\})\s*$/s)
        if (merge) return { action: 'merge', coords: merge.slice(1, 4), nbt: merge[4] }
        const get = args.match(/^get\s+block\s+(\S+)\s+(\S+)\s+(\S+)(\s+Items)?\s*$/)
        if (get) return { action: 'get', coords: get.slice(1, 4) }
        const entity = args.match(/^get\s+entity\s+(\S+)\s+Inventory\s*$/)
        if (entity) return { action: 'getInventory', target: entity[1] }
        return false
      },
      async action ({ action, coords, nbt, target }, ctx) {
        if (action === 'getInventory') return describeInventory(target, ctx)
        const pos = parsePosition(coords, ctx.player ? ctx.player.position : new Vec3(0, 0, 0))
        if (!pos) throw new UserError(`Invalid position ${coords.join(' ')}`)
        const world = ctx.player ? ctx.player.world : serv.overworld
        const block = await world.getBlock(pos)
        if (!block || !sizes.has(block.name)) {
          throw new UserError(`The target block is not a block entity: ${block ? block.name : 'nothing'} at ${pos.x}, ${pos.y}, ${pos.z}`)
        }
        const container = containerAt(world, pos, block.name)
        if (action === 'get') {
          return `${pos.x}, ${pos.y}, ${pos.z} has the following block data: {Items:[${describeItems(container)}]}`
        }
        const entries = parseItems(nbt)
        const slots = new Array(container.slots.length).fill(null)
        for (const entry of entries) {
          const item = registry.itemsByName[entry.id.replace(/^minecraft:/, '')]
          if (!item) throw new UserError(`Unknown item '${entry.id}'`)
          if (entry.slot < 0 || entry.slot >= slots.length) throw new UserError(`Slot ${entry.slot} does not exist in a ${block.name}`)
          slots[entry.slot] = entry.count > 0 ? new Item(item.id, Math.min(entry.count, item.stackSize)) : null
        }
        // as in vanilla, merging an Items list replaces the whole list
        slots.forEach((item, i) => { container.slots[i] = item })
        changed(container)
        return `Modified block data of ${pos.x}, ${pos.y}, ${pos.z}`
      }
    })
  }

  // vanilla's Inventory NBT slot -> slot of flying-squid's player window, in the order vanilla lists them:
  // hotbar 0-8 (window 36-44), main 9-35 (same), armour 100-103 feet..head (window 8..5), offhand -106 (45).
  const INVENTORY_SLOTS = [
    ...Array.from({ length: 9 }, (_, i) => [i, 36 + i]),
    ...Array.from({ length: 27 }, (_, i) => [9 + i, 9 + i]),
    ...Array.from({ length: 4 }, (_, i) => [100 + i, 8 - i]),
    [-106, 45]
  ]

  // The reply of vanilla's (1.20.5+) `/data get entity <player> Inventory`, so callers parse one format.
  function describeInventory (name, ctx) {
    const player = name === '@s' ? ctx.player : serv.players.find(p => p.username.toLowerCase() === name.toLowerCase())
    if (!player) throw new UserError('No entity was found')
    const entries = INVENTORY_SLOTS.map(([slot, windowSlot]) => [slot, player.inventory.slots[windowSlot]])
      .filter(([, item]) => item)
      .map(([slot, item]) => `{count: ${item.count}, Slot: ${slot}b, id: "minecraft:${registry.items[item.type].name}"}`)
    return `${player.username} has the following entity data: [${entries.join(', ')}]`
  }

  function describeItems (container) {
    return container.slots.map((item, slot) => item && `{Slot:${slot}b,id:"minecraft:${registry.items[item.type].name}",count:${item.count}}`)
      .filter(Boolean).join(',')
  }
}

// Block coordinates, absolute or relative to `base` (~, ~1, ~-2).
function parsePosition (coords, base) {
  const values = coords.map((c, i) => {
    const origin = [base.x, base.y, base.z][i]
    return c.startsWith('~') ? Math.floor(origin + Number(c.slice(1) || 0)) : Number(c)
  })
  return values.every(Number.isFinite) ? new Vec3(...values.map(Math.floor)) : null
}

// The Items list of a (relaxed) SNBT compound: [{Slot:1b,id:"minecraft:coal",count:8}, ...]
// (Count:8b, the pre-1.20.5 spelling, is read too).
function parseItems (nbt) {
  const list = nbt.search(/Items\s*:\s*\[/)
  return list < 0 ? [] : itemEntries(nbt.slice(list)).filter(entry => entry.slot !== null)
}
