'use strict'
// "Is a block of one of these kinds within r blocks of here?", read from the block-state ids of the bot's loaded
// chunk sections. The answer is the same as !!bot.findBlock({ matching, maxDistance: r }): the cells whose integer
// position is within r (straight-line distance) of the floored position, in loaded chunks only.
//
// Why not findBlock: it builds a Block object (name, light, biome...) for every cell of every 16^3 section it
// visits, and it cannot skip a section filled with one block (air, stone) because such a section has no palette
// array. Here a section whose palette cannot hold a wanted id is skipped outright, and the rest is compared as
// numbers. The modes ask this on every update tick of every agent, all on the bots' one Node thread.

const SECTION = 16

// registry -> (names joined -> Set of the state ids of those blocks), computed once per version
const wantedIdsByRegistry = new WeakMap()

function stateIdsOf (registry, names) {
  let byNames = wantedIdsByRegistry.get(registry)
  if (!byNames) {
    byNames = new Map()
    wantedIdsByRegistry.set(registry, byNames)
  }
  const key = names.join(',')
  let ids = byNames.get(key)
  if (!ids) {
    ids = new Set()
    for (const name of names) {
      const block = registry.blocksByName[name]
      if (!block) continue // a block this version lacks
      for (let id = block.minStateId; id <= block.maxStateId; id++) ids.add(id)
    }
    byNames.set(key, ids)
  }
  return ids
}

// Could this section hold one of the ids? A section stores either one value for all its cells, a palette of the
// values it uses (entries may outlive the cells that used them, so "yes" means "look"), or every cell directly.
function mayHold (section, ids) {
  if (!section) return false // never sent: all air
  if (Array.isArray(section.palette)) return section.palette.some(id => ids.has(id))
  const single = section.data && section.data.value
  if (typeof single === 'number') return ids.has(single)
  return true // direct storage: only reading the cells tells
}

// Any cell within `radius` of `origin` (a floored Vec3) whose state id is in `ids`?
function anyWithin (world, origin, radius, ids, minY, height) {
  const r = Math.floor(radius)
  const r2 = radius * radius
  const yLow = Math.max(origin.y - r, minY)
  const yHigh = Math.min(origin.y + r, minY + height - 1)
  for (let cx = Math.floor((origin.x - r) / SECTION); cx <= Math.floor((origin.x + r) / SECTION); cx++) {
    for (let cz = Math.floor((origin.z - r) / SECTION); cz <= Math.floor((origin.z + r) / SECTION); cz++) {
      const column = world.getColumn(cx, cz)
      if (!column) continue // not loaded: findBlock does not see it either
      for (let sy = Math.floor((yLow - minY) / SECTION); sy <= Math.floor((yHigh - minY) / SECTION); sy++) {
        const section = column.sections[sy]
        if (!mayHold(section, ids)) continue
        if (sectionHas(section, cx, sy, cz, origin, r, r2, ids, minY, yLow, yHigh)) return true
      }
    }
  }
  return false
}

// The cells of one section that lie in the cube around origin, checked against the sphere and the ids.
function sectionHas (section, cx, sy, cz, origin, r, r2, ids, minY, yLow, yHigh) {
  const x0 = cx * SECTION
  const y0 = minY + sy * SECTION
  const z0 = cz * SECTION
  const local = { x: 0, y: 0, z: 0 }
  for (let y = Math.max(y0, yLow); y <= Math.min(y0 + SECTION - 1, yHigh); y++) {
    const dy = y - origin.y
    for (let z = Math.max(z0, origin.z - r); z <= Math.min(z0 + SECTION - 1, origin.z + r); z++) {
      const dz = z - origin.z
      for (let x = Math.max(x0, origin.x - r); x <= Math.min(x0 + SECTION - 1, origin.x + r); x++) {
        const dx = x - origin.x
        if (dx * dx + dy * dy + dz * dz > r2) continue
        local.x = x - x0
        local.y = y - y0
        local.z = z - z0
        if (ids.has(section.get(local))) return true
      }
    }
  }
  return false
}

// Whether a block named in `names` lies within `radius` blocks of the bot (as !!bot.findBlock would say).
function blockWithin (bot, names, radius) {
  const origin = bot.entity.position.floored()
  return anyWithin(bot.world, origin, radius, stateIdsOf(bot.registry, names), bot.game.minY, bot.game.height)
}

module.exports = { blockWithin }
