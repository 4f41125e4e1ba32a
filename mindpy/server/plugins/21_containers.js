'use strict'
// Block containers: chests (and barrels) that keep what is put in them, and furnaces, smokers and blast
// furnaces that smelt with our own recipe and fuel table (js/data/smelting.json). Contents live in memory
// while the server runs. `/data merge block x y z {Items:[{Slot:1b,id:"minecraft:coal",count:8}]}` fills
// a container at set-up, as on vanilla servers.
//
// Plugin option `smeltSpeed` (default 1) multiplies smelting speed, for tests.

const path = require('path')
const { Vec3 } = require('vec3')
const smelting = require(path.join(__dirname, '..', 'js', 'data', 'smelting.json'))

const CHESTS = ['chest', 'trapped_chest', 'barrel']
const FURNACES = ['furnace', 'smoker', 'blast_furnace']
const TICK_MS = 50

module.exports.server = function (serv, settings) {
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)
  const speed = Number(settings?.mindpy?.pluginOptions?.smeltSpeed) || 1
  const containers = new Map() // "x,y,z" -> container
  serv.mindpyContainers = containers

  const key = pos => `${pos.x},${pos.y},${pos.z}`
  const nameOf = item => (item ? registry.items[item.type]?.name : null)

  function fuelTicks (item) {
    const name = nameOf(item)
    if (!name) return 0
    if (smelting.fuels[name]) return smelting.fuels[name]
    for (const [suffix, ticks] of Object.entries(smelting.fuelSuffixes)) if (name.endsWith(suffix)) return ticks
    return 0
  }

  function recipeFor (kind, item) {
    const recipe = smelting.recipes[nameOf(item)]
    if (!recipe) return null
    if (kind === 'smoker' && recipe.kind !== 'food') return null
    if (kind === 'blast_furnace' && recipe.kind !== 'ore') return null
    return recipe
  }

  function containerAt (position, blockName) {
    const k = key(position)
    let container = containers.get(k)
    if (!container || container.kind !== blockName) {
      container = FURNACES.includes(blockName)
        ? { kind: blockName, slots: [null, null, null], burn: 0, burnTotal: 0, cook: 0, viewers: new Set() }
        : { kind: blockName, slots: new Array(27).fill(null), viewers: new Set() }
      containers.set(k, container)
    }
    return container
  }
  serv.mindpyContainerAt = containerAt

  // ---- smelting ------------------------------------------------------------------------------------
  function cookTotal (container) {
    return smelting.cookTicks[container.kind]
  }

  function canSmelt (container) {
    const [input, , output] = container.slots
    const recipe = input && recipeFor(container.kind, input)
    if (!recipe) return false
    const result = registry.itemsByName[recipe.output]
    if (!result) return false
    return !output || (output.type === result.id && output.count < output.stackSize)
  }

  function tickFurnace (container) {
    const before = [container.burn, container.cook]
    const fuelRate = container.kind === 'furnace' ? 1 : 2
    if (container.burn <= 0 && canSmelt(container)) {
      const fuel = container.slots[1]
      const ticks = fuelTicks(fuel)
      if (ticks > 0) {
        container.burn = container.burnTotal = ticks
        const name = nameOf(fuel)
        container.slots[1] = fuel.count > 1 ? new Item(fuel.type, fuel.count - 1) : (name === 'lava_bucket' ? new Item(registry.itemsByName.bucket.id, 1) : null)
      }
    }
    if (container.burn > 0) {
      container.burn -= fuelRate * speed
      if (canSmelt(container)) {
        container.cook += speed
        if (container.cook >= cookTotal(container)) {
          container.cook = 0
          const [input, , output] = container.slots
          const result = registry.itemsByName[recipeFor(container.kind, input).output]
          container.slots[0] = input.count > 1 ? new Item(input.type, input.count - 1) : null
          container.slots[2] = new Item(result.id, (output ? output.count : 0) + 1)
          refreshViewers(container, true)
        }
      } else {
        container.cook = 0
      }
    } else if (container.cook > 0) {
      container.cook = Math.max(0, container.cook - 2 * speed) // cooling down without fuel
    }
    if (container.burn < 0) container.burn = 0
    if (before[0] !== container.burn || before[1] !== container.cook) sendProperties(container)
  }

  setInterval(() => {
    for (const container of containers.values()) {
      if (FURNACES.includes(container.kind) && (container.burn > 0 || container.cook > 0 || (container.slots[0] && container.slots[1]))) {
        try { tickFurnace(container) } catch (err) { serv.err?.(`[mindpy] furnace tick: ${err.stack}`) }
      }
    }
  }, TICK_MS).unref()

  function sendProperties (container) {
    for (const { player, windowId } of container.viewers) {
      const values = [Math.ceil(container.burn), container.burnTotal, Math.floor(container.cook), cookTotal(container)]
      values.forEach((value, property) => player._client.write('craft_progress_bar', { windowId, property, value }))
    }
  }

  function refreshViewers (container) {
    for (const { player } of container.viewers) player.mindpySyncWindow && player.mindpySyncWindow()
  }

  // ---- windows ---------------------------------------------------------------------------------------
  function openContainer (player, block) {
    const container = containerAt(block.position, block.name)
    const isFurnace = FURNACES.includes(container.kind)
    const viewer = { player, windowId: null }
    const spec = {
      type: isFurnace ? `minecraft:${container.kind}` : 'minecraft:generic_9x3',
      title: block.name.replace(/_/g, ' ').replace(/^\w/, ch => ch.toUpperCase()),
      size: container.slots.length,
      get: i => container.slots[i],
      set: (i, item) => { container.slots[i] = item },
      isResult: () => false,
      mayPlace: (i, item) => {
        if (!isFurnace) return true
        if (i === 2) return false
        if (i === 1) return fuelTicks(item) > 0
        return container.kind === 'furnace' || !!recipeFor(container.kind, item)
      },
      quickMoveInto: item => {
        if (!isFurnace) return [[0, container.slots.length]]
        if (recipeFor(container.kind, item)) return [[0, 1]]
        if (fuelTicks(item) > 0) return [[1, 2]]
        return []
      },
      after: () => {},
      onOpen: windowId => { viewer.windowId = windowId; container.viewers.add(viewer); if (isFurnace) sendProperties(container) },
      onClose: () => container.viewers.delete(viewer)
    }
    player.mindpyOpenWindow(spec)
  }

  serv.once('pluginsReady', () => {
    for (const name of CHESTS.concat(FURNACES)) {
      if (!registry.blocksByName[name]) continue
      serv.onBlockInteraction(name, ({ block, player }) => {
        if (player.crouching) return false
        openContainer(player, block)
        return true
      })
    }
    registerDataCommand()
  })

  // ---- /data merge block -------------------------------------------------------------------------------
  function registerDataCommand () {
    const UserError = require('flying-squid').UserError
    serv.commands.add({
      base: 'data',
      info: 'Set the contents of a container block',
      usage: '/data merge block <x> <y> <z> {Items:[{Slot:0b,id:"minecraft:coal",count:8}]}',
      op: true,
      parse (args) {
        const match = args.match(/^merge\s+block\s+(\S+)\s+(\S+)\s+(\S+)\s+(\{.*\})\s*$/)
        return match ? { coords: match.slice(1, 4), nbt: match[4] } : false
      },
      async action ({ coords, nbt }, ctx) {
        const base = ctx.player ? ctx.player.position : new Vec3(0, 0, 0)
        const pos = new Vec3(...coords.map((c, i) => c.startsWith('~') ? Math.floor(base.toArray()[i] + Number(c.slice(1) || 0)) : Number(c)))
        if (pos.toArray().some(Number.isNaN)) throw new UserError(`Invalid position ${coords.join(' ')}`)
        const world = ctx.player ? ctx.player.world : serv.overworld
        const block = await world.getBlock(pos)
        if (!CHESTS.includes(block.name) && !FURNACES.includes(block.name)) {
          throw new UserError(`Target block is not a block entity: ${block.name} at ${coords.join(' ')}`)
        }
        const container = containerAt(pos, block.name)
        for (const entry of parseItems(nbt)) {
          const item = registry.itemsByName[entry.id.replace(/^minecraft:/, '')]
          if (!item) throw new UserError(`Unknown item '${entry.id}'`)
          if (entry.slot < 0 || entry.slot >= container.slots.length) throw new UserError(`Slot ${entry.slot} does not exist in ${block.name}`)
          container.slots[entry.slot] = entry.count > 0 ? new Item(item.id, entry.count) : null
        }
        refreshViewers(container)
        return `Modified block data of ${pos.x}, ${pos.y}, ${pos.z}`
      }
    })
  }
}

// The Items list of a (relaxed) SNBT compound: [{Slot:1b,id:"minecraft:coal",Count:8b}, ...].
function parseItems (nbt) {
  const list = nbt.match(/Items\s*:\s*\[(.*)\]/s)
  if (!list) return []
  const items = []
  for (const compound of list[1].match(/\{[^{}]*\}/g) || []) {
    const slot = compound.match(/Slot\s*:\s*(-?\d+)/i)
    const id = compound.match(/id\s*:\s*"?([a-z0-9_:]+)"?/i)
    const count = compound.match(/count\s*:\s*(\d+)/i)
    if (slot && id) items.push({ slot: Number(slot[1]), id: id[1], count: count ? Number(count[1]) : 1 })
  }
  return items
}
