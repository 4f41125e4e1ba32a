'use strict'
// Crafting recipes the game has but minecraft-data does not list: vanilla's "special" recipes, such as
// suspicious stew from a bowl, two mushrooms and a small flower, and dyeing wool, carpets and beds of any colour.
// The embedded server and the bots both add them to their registry, so a bot can plan the craft and the server
// makes it.

const SPECIAL = require('./special_recipes.json')

// The recipe tables already extended. Keyed by the table, not the registry: every bot gets its own registry
// object, but those of one version share minecraft-data's recipes, and adding the variants again for each bot
// grew the table without end (each pass also dyes the last pass's variants) and froze the bots' Node process.
const extended = new WeakSet()

// Add the special recipes and the dyeing variants to `registry.recipes` (minecraft-data's shape: result id ->
// entries); once per recipe table.
function addSpecialRecipes (registry) {
  if (!registry.recipes || extended.has(registry.recipes)) return
  extended.add(registry.recipes)
  addDyeVariants(registry)
  for (const [name, entries] of Object.entries(SPECIAL)) {
    const result = registry.itemsByName[name]
    if (!result) continue // an older version without the item
    for (const entry of entries) {
      const ids = entry.ingredients.map(n => registry.itemsByName[n]?.id)
      if (ids.some(id => id === undefined)) continue
      if (!registry.recipes[result.id]) registry.recipes[result.id] = []
      registry.recipes[result.id].push({ ingredients: ids, result: { id: result.id, count: entry.count } })
    }
  }
}

// Dyeing takes the thing dyed in any colour but the result's (the game's item tag); minecraft-data 1.21 lists
// one stand-in only (blue_wool from blue_dye + black_wool). dyeVariants(registry, entry) gives the recipes with
// the other colours in the stand-in's place (the Python planners know this rule themselves).

const COLOURS = ['white', 'orange', 'magenta', 'light_blue', 'yellow', 'lime', 'pink', 'gray', 'light_gray', 'cyan',
  'purple', 'blue', 'brown', 'green', 'red', 'black']

function colourSplit (name) {
  let best = null
  for (const c of COLOURS) if (name && name.startsWith(c + '_') && (!best || c.length > best.length)) best = c
  return best ? [best, name.slice(best.length + 1)] : null
}

function idOf (cell) {
  if (Array.isArray(cell)) return idOf(cell[0])
  if (cell && typeof cell === 'object') return cell.id
  return cell
}

function dyeVariants (registry, entry) {
  if (!entry.ingredients) return []
  const made = colourSplit(registry.items[entry.result.id]?.name)
  if (!made) return []
  const names = entry.ingredients.map(cell => registry.items[idOf(cell)]?.name)
  if (made[1] === 'dye' || !names.includes(`${made[0]}_dye`)) return [] // dyeing: the result's own dye on another colour
  const slot = names.findIndex(n => { const s = colourSplit(n); return s && s[1] === made[1] && s[0] !== made[0] })
  if (slot < 0) return []
  const out = []
  for (const c of COLOURS) {
    const other = registry.itemsByName[`${c}_${made[1]}`]
    if (!other || c === made[0] || other.id === idOf(entry.ingredients[slot])) continue
    const ingredients = entry.ingredients.slice()
    ingredients[slot] = other.id
    out.push({ ingredients, result: entry.result })
  }
  return out
}

// Adds the variants to registry.recipes (mineflayer's recipesFor reads it).
function addDyeVariants (registry) {
  for (const entries of Object.values(registry.recipes || {})) {
    for (const entry of entries.slice()) entries.push(...dyeVariants(registry, entry))
  }
}

module.exports = { addSpecialRecipes }
