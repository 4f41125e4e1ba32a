'use strict'
// Item lists in SNBT, as /data writes and reads them: [{Slot: 0b, id: "minecraft:bread", count: 3}, ...] (before
// 1.20.5 `Count: 3b`). Only each compound's own keys are read: item components nest further `id`s
// (enchantments) and quoted text that may hold braces.

// {slot, id, count} for each item compound of the first list in `text` (slot null when the compound has none;
// id without the minecraft: namespace).
function itemEntries (text) {
  const entries = []
  for (const keys of topLevelCompounds(text)) {
    const key = name => keys.match(new RegExp(`(?:^|,)\\s*${name}\\s*:\\s*["']?(?:minecraft:)?(-?[a-z0-9_]+)`, 'i'))
    const id = key('id')
    if (!id) continue
    const slot = key('Slot')
    const count = key('count')
    entries.push({ slot: slot ? parseInt(slot[1], 10) : null, id: id[1].toLowerCase(), count: count ? parseInt(count[1], 10) : 1 })
  }
  return entries
}

// The text of each compound directly inside the first list, with whatever is nested deeper left out.
function topLevelCompounds (text) {
  const compounds = []
  let depth = 0; let quote = null; let current = ''
  let listDepth = null
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    const inside = listDepth !== null && depth === listDepth + 1
    if (quote) {
      if (c === '\\') { if (inside) current += c + text[i + 1]; i++; continue }
      if (c === quote) quote = null
      if (inside) current += c
      continue
    }
    if (c === '"' || c === "'") { quote = c; if (inside) current += c; continue }
    if (c === '[' || c === '{') {
      depth++
      if (c === '[' && listDepth === null) listDepth = depth
      else if (c === '{' && listDepth !== null && depth === listDepth + 1) current = ''
      continue
    }
    if (c === ']' || c === '}') {
      if (c === '}' && inside) compounds.push(current)
      if (c === ']' && depth === listDepth) return compounds
      depth--
      continue
    }
    if (inside) current += c
  }
  return compounds
}

module.exports = { itemEntries }
