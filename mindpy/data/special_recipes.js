'use strict'
// Crafting recipes the game has but minecraft-data does not list (vanilla's "special" recipes, such as
// suspicious stew from a bowl, two mushrooms and a small flower). The embedded server and the bots' crafting
// both add them to their registry, so a bot can plan the craft and the server makes it.

const SPECIAL = require('./special_recipes.json')

// Add the special recipes to `registry.recipes` (minecraft-data's shape: result id -> entries); once per registry.
function addSpecialRecipes (registry) {
  if (registry.mindpySpecialRecipes) return
  registry.mindpySpecialRecipes = true
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

module.exports = { addSpecialRecipes }
