'use strict'
// Crafting: the 2x2 grid of the player inventory and the crafting table (opened by using a placed
// crafting_table), with minecraft-data's recipes: shaped (also mirrored) and shapeless. The result slot
// follows the grid; taking the result uses one of each ingredient (buckets come back empty);
// shift-clicking the result crafts as many as fit (the click rules are in lib/clicks.js).

const { addSpecialRecipes } = require('../../data/special_recipes')

const REMAINDERS = { milk_bucket: 'bucket', water_bucket: 'bucket', lava_bucket: 'bucket', honey_bottle: 'glass_bottle' }

module.exports.server = function (serv) {
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)
  addSpecialRecipes(registry) // recipes the game has and minecraft-data lacks (suspicious stew)
  const book = buildRecipeBook(registry)
  const remainderIds = {}
  for (const [from, to] of Object.entries(REMAINDERS)) {
    if (registry.itemsByName[from] && registry.itemsByName[to]) remainderIds[registry.itemsByName[from].id] = registry.itemsByName[to].id
  }

  // A grid: {width, height, get(k), set(k, item), setResult(item)}; cells k = x + width * y.
  function match (grid) {
    const cells = []
    for (let k = 0; k < grid.width * grid.height; k++) cells.push(grid.get(k))
    const present = cells.filter(Boolean)
    if (!present.length) return null
    const candidates = book.get(signature(present.map(i => i.type))) || []
    for (const recipe of candidates) {
      if (recipe.ingredients || shapedMatches(recipe.shape, cells, grid.width, grid.height)) return recipe
    }
    return null
  }

  const crafting = {
    refresh (grid) {
      const recipe = match(grid)
      grid.setResult(recipe ? new Item(recipe.result.id, recipe.result.count) : null)
    },
    // Craft once: returns the result item and consumes the ingredients, or null.
    take (grid) {
      const recipe = match(grid)
      if (!recipe) { grid.setResult(null); return null }
      for (let k = 0; k < grid.width * grid.height; k++) {
        const item = grid.get(k)
        if (!item) continue
        const remainder = remainderIds[item.type]
        if (item.count > 1) grid.set(k, new Item(item.type, item.count - 1, item.metadata))
        else grid.set(k, remainder !== undefined ? new Item(remainder, 1) : null)
      }
      this.refresh(grid)
      return new Item(recipe.result.id, recipe.result.count)
    }
  }
  serv.mindpyCrafting = crafting

  serv.on('newPlayer', player => { player.mindpyCraftGrid = crafting })

  serv.once('pluginsReady', () => {
    serv.onBlockInteraction('crafting_table', ({ player, block }) => {
      if (player.crouching) return false
      openCraftingTable(player, block)
      return true
    })
  })

  function openCraftingTable (player, block) {
    const slots = new Array(10).fill(null)
    const grid = {
      width: 3,
      height: 3,
      get: k => slots[1 + k],
      set: (k, item) => { slots[1 + k] = item },
      setResult: item => { slots[0] = item }
    }
    player.mindpyOpenWindow({
      type: 'minecraft:crafting',
      title: 'Crafting',
      size: 10,
      craftingSlots: 10,
      block: { position: block.position, name: block.name },
      get: i => slots[i],
      set: (i, item) => { slots[i] = item },
      isResult: i => i === 0,
      takeResult: () => crafting.take(grid),
      mayPlace: i => i !== 0,
      quickMoveInto: () => [[1, 10], 'swap'], // into the grid, else between main inventory and hotbar
      after: () => crafting.refresh(grid),
      onClose: () => {
        // what is left in the grid goes back to the player (or drops if there is no room)
        for (let i = 1; i < 10; i++) {
          if (!slots[i]) continue
          const left = player.mindpyGive(slots[i])
          slots[i] = null
          if (left) player.mindpyThrow(left)
        }
      }
    })
  }
}

function signature (ids) {
  return ids.slice().sort((a, b) => a - b).join(',')
}

// Recipes indexed by the multiset of their ingredients, so matching a grid checks only a few of them.
function buildRecipeBook (registry) {
  const book = new Map()
  for (const entries of Object.values(registry.recipes || {})) {
    for (const entry of entries) {
      let ids
      let recipe
      if (entry.inShape) {
        const shape = trimShape(entry.inShape.map(row => row.map(cell => normalizeCell(cell))))
        ids = shape.flat().filter(id => id !== null)
        recipe = { shape, result: entry.result }
      } else if (entry.ingredients) {
        ids = entry.ingredients.map(normalizeCell).filter(id => id !== null)
        recipe = { ingredients: ids, result: entry.result }
      } else {
        continue
      }
      const key = signature(ids)
      if (!book.has(key)) book.set(key, [])
      book.get(key).push(recipe)
    }
  }
  return book
}

function normalizeCell (cell) {
  if (cell === null || cell === undefined) return null
  if (typeof cell === 'number') return cell < 0 ? null : cell
  if (Array.isArray(cell)) return normalizeCell(cell[0])
  if (typeof cell === 'object') return normalizeCell(cell.id)
  return null
}

function trimShape (shape) {
  const width = Math.max(...shape.map(row => row.length))
  const rows = shape.map(row => Array.from({ length: width }, (_, x) => row[x] ?? null))
  return rows
}

// Does the grid hold the shape (anywhere in the grid, or mirrored left-right)?
function shapedMatches (shape, cells, width, height) {
  const h = shape.length
  const w = shape[0].length
  let minX = width; let minY = height; let maxX = -1; let maxY = -1
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (cells[x + width * y]) { minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y) }
    }
  }
  const shapeBox = boundingBox(shape)
  if (maxX - minX !== shapeBox.maxX - shapeBox.minX || maxY - minY !== shapeBox.maxY - shapeBox.minY) return false
  for (const mirror of [false, true]) {
    let ok = true
    for (let dy = 0; dy <= maxY - minY && ok; dy++) {
      for (let dx = 0; dx <= maxX - minX && ok; dx++) {
        const sx = mirror ? shapeBox.maxX - dx : shapeBox.minX + dx
        const want = shape[shapeBox.minY + dy][sx]
        const have = cells[(minX + dx) + width * (minY + dy)]
        if ((want === null) !== !have || (have && have.type !== want)) ok = false
      }
    }
    if (ok) return true
  }
  return w === 0 && h === 0
}

function boundingBox (shape) {
  let minX = Infinity; let minY = Infinity; let maxX = -1; let maxY = -1
  shape.forEach((row, y) => row.forEach((cell, x) => {
    if (cell !== null) { minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y) }
  }))
  return { minX, minY, maxX, maxY }
}
