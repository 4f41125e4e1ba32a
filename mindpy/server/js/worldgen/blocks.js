'use strict'
// The block states the generator places, looked up by name in the server's registry. A few names changed between
// versions (the short plant "grass" became "short_grass" in 1.20.3): each entry lists the names to try, newest first.

const NAMES = {
  air: ['air'],
  bedrock: ['bedrock'],
  stone: ['stone'],
  deepslate: ['deepslate'],
  dirt: ['dirt'],
  grass: ['grass_block'],
  sand: ['sand'],
  sandstone: ['sandstone'],
  gravel: ['gravel'],
  clay: ['clay'],
  water: ['water'],
  lava: ['lava'],
  granite: ['granite'],
  diorite: ['diorite'],
  andesite: ['andesite'],
  tuff: ['tuff'],
  coal: ['coal_ore'],
  deepCoal: ['deepslate_coal_ore', 'coal_ore'],
  iron: ['iron_ore'],
  deepIron: ['deepslate_iron_ore', 'iron_ore'],
  copper: ['copper_ore', 'iron_ore'],
  deepCopper: ['deepslate_copper_ore', 'copper_ore', 'iron_ore'],
  gold: ['gold_ore'],
  deepGold: ['deepslate_gold_ore', 'gold_ore'],
  redstone: ['redstone_ore'],
  deepRedstone: ['deepslate_redstone_ore', 'redstone_ore'],
  lapis: ['lapis_ore'],
  deepLapis: ['deepslate_lapis_ore', 'lapis_ore'],
  diamond: ['diamond_ore'],
  deepDiamond: ['deepslate_diamond_ore', 'diamond_ore'],
  oakLog: ['oak_log'],
  oakLeaves: ['oak_leaves'],
  birchLog: ['birch_log'],
  birchLeaves: ['birch_leaves'],
  spruceLog: ['spruce_log'],
  spruceLeaves: ['spruce_leaves'],
  shortGrass: ['short_grass', 'grass'],
  fern: ['fern'],
  dandelion: ['dandelion'],
  poppy: ['poppy'],
  cornflower: ['cornflower', 'poppy'],
  azureBluet: ['azure_bluet', 'dandelion'],
  oxeyeDaisy: ['oxeye_daisy', 'dandelion']
}

// name -> state id, for every entry of NAMES; a block with no name found stops the server with one clear line.
function blockStates (registry) {
  const states = {}
  for (const [key, names] of Object.entries(NAMES)) {
    const found = names.map(name => registry.blocksByName[name]).find(Boolean)
    if (!found) throw new Error(`normal world: no block named ${names.join(' or ')} in Minecraft ${registry.version.minecraftVersion}`)
    states[key] = found.defaultState
  }
  return states
}

// Biome ids, with the same fallback idea (every supported version has these; plains is the last resort).
function biomeIds (registry) {
  const ids = {}
  for (const name of ['plains', 'forest', 'birch_forest', 'taiga', 'beach', 'ocean', 'deep_ocean', 'river']) {
    ids[name] = (registry.biomesByName[name] || registry.biomesByName.plains).id
  }
  return ids
}

module.exports = { blockStates, biomeIds }
