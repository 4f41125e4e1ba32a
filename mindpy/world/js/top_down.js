'use strict'
// The top block of every column in a square around a point, as the bot has loaded it: the dashboard's map.
// Read from the chunk sections' block-state ids, as block_scan.js does: a section that holds only air (one value,
// or a palette of air) is skipped whole, and a column is read from its highest section that holds anything else
// downwards, so a superflat world costs a few reads per column.

const SECTION = 16
const AIR = ['air', 'cave_air', 'void_air']

function airIds (registry) {
  const ids = new Set()
  for (const name of AIR) {
    const block = registry.blocksByName[name]
    if (!block) continue
    for (let id = block.minStateId; id <= block.maxStateId; id++) ids.add(id)
  }
  return ids
}

function onlyAir (section, air) {
  if (!section) return true // never sent: all air
  const single = section.data && section.data.value
  if (typeof single === 'number') return air.has(single)
  if (Array.isArray(section.palette)) return section.palette.every(id => air.has(id))
  return false
}

// JSON {x0, z0, size, names: [...], cells: [index into names or -1 (not loaded)], heights: [y or null]} for the
// (2 * radius + 1)^2 columns centred on (x, z), row by row (z outer, x inner).
function topDownJson (bot, x, z, radius) {
  const registry = bot.registry
  const air = airIds(registry)
  const minY = bot.game.minY
  const r = Math.max(1, Math.min(128, Math.floor(radius)))
  const size = 2 * r + 1
  const x0 = Math.floor(x) - r
  const z0 = Math.floor(z) - r
  const cells = new Array(size * size).fill(-1)
  const heights = new Array(size * size).fill(null)
  const names = []
  const nameIndex = new Map()
  const local = { x: 0, y: 0, z: 0 }
  for (let cx = Math.floor(x0 / SECTION); cx <= Math.floor((x0 + size - 1) / SECTION); cx++) {
    for (let cz = Math.floor(z0 / SECTION); cz <= Math.floor((z0 + size - 1) / SECTION); cz++) {
      const column = bot.world.getColumn(cx, cz)
      if (!column) continue
      const sections = column.sections
      let top = sections.length - 1
      while (top >= 0 && onlyAir(sections[top], air)) top--
      for (let wz = Math.max(z0, cz * SECTION); wz <= Math.min(z0 + size - 1, cz * SECTION + SECTION - 1); wz++) {
        for (let wx = Math.max(x0, cx * SECTION); wx <= Math.min(x0 + size - 1, cx * SECTION + SECTION - 1); wx++) {
          const cell = (wz - z0) * size + (wx - x0)
          local.x = wx - cx * SECTION
          local.z = wz - cz * SECTION
          let found = false
          for (let sy = top; sy >= 0 && !found; sy--) {
            const section = sections[sy]
            if (onlyAir(section, air)) continue
            for (let ly = SECTION - 1; ly >= 0; ly--) {
              local.y = ly
              const id = section.get(local)
              if (air.has(id)) continue
              const block = registry.blocksByStateId[id]
              const name = block ? block.name : 'unknown'
              let index = nameIndex.get(name)
              if (index === undefined) {
                index = names.length
                names.push(name)
                nameIndex.set(name, index)
              }
              cells[cell] = index
              heights[cell] = minY + sy * SECTION + ly
              found = true
              break
            }
          }
          if (!found) cells[cell] = -2 // loaded, nothing but air
        }
      }
    }
  }
  return JSON.stringify({ x0, z0, size, names, cells, heights })
}

// JSON [{name, kind: 'player' | 'mob' | 'item' | ..., x, z}] of the entities the bot sees within `radius` (x and z)
// of (x, z), itself included.
function markersJson (bot, x, z, radius) {
  const out = []
  for (const entity of Object.values(bot.entities)) {
    const p = entity.position
    if (!p || Math.abs(p.x - x) > radius || Math.abs(p.z - z) > radius) continue
    const name = entity.type === 'player' ? entity.username : (entity.name || entity.type)
    out.push({ name, kind: entity.type, x: Math.round(p.x * 10) / 10, z: Math.round(p.z * 10) / 10 })
  }
  return JSON.stringify(out)
}

module.exports = { topDownJson, markersJson }
