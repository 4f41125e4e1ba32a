'use strict'
// Entity metadata in the shape each protocol version reads. From 1.19.4 on the protocol names a value's type
// ('byte', 'item_stack', ...); before, it numbers them, and 1.19.3 inserted 'long' as number 2, which moved every
// later number up by one. flying-squid writes the numbers of 1.13-1.19.2 at every version (wrong at 1.19.3, not
// names at 1.19.4+), and our plugins write names: both are turned into what the version expects here.

const NUMBERED_BEFORE_1_19_3 = [
  'byte', 'int', 'float', 'string', 'component', 'optional_component', 'item_stack', 'boolean', 'rotations',
  'block_pos', 'optional_block_pos', 'direction', 'optional_uuid', 'block_state', 'nbt', 'particle',
  'villager_data', 'optional_unsigned_int', 'pose', 'cat_variant', 'frog_variant', 'optional_global_pos',
  'painting_variant'
]
const NUMBERED_1_19_3 = [...NUMBERED_BEFORE_1_19_3.slice(0, 2), 'long', ...NUMBERED_BEFORE_1_19_3.slice(2)]

// The key of an item entity's item stack from 1.17 on (after flags, air, name, name shown, silent, no gravity,
// pose and frozen ticks); flying-squid uses the key of 1.14-1.16.
const ITEM_STACK_KEY = 8

// Metadata keys minecraft-data lists only from 1.19.4 on; the game used the same ones from 1.17 (after frozen ticks
// joined the entity's base keys) until 1.20.2: the pose and the bed a living entity sleeps in, a sheep's wool byte,
// a creeper's swelling.
const KEYS_BEFORE_1_19_4 = { pose: 6, sleeping_pos: 14, wool: 17, swell_dir: 16 }

// The index of `entityName`'s metadata field `field` (e.g. 'player', 'pose'), or -1 when the version has none.
function metadataKey (registry, entityName, field) {
  const keys = registry.entitiesByName[entityName]?.metadataKeys
  if (keys) return keys.indexOf(field)
  return registry.version['<']('1.19.4') ? KEYS_BEFORE_1_19_4[field] ?? -1 : -1
}

// `type`: a name, or one of flying-squid's numbers. Returns the type as `registry`'s version writes it.
function metadataType (registry, type) {
  const name = typeof type === 'number' ? NUMBERED_BEFORE_1_19_3[type] : type
  if (registry.version['>=']('1.19.4')) return name
  const numbers = registry.version['>=']('1.19.3') ? NUMBERED_1_19_3 : NUMBERED_BEFORE_1_19_3
  const number = numbers.indexOf(name)
  if (number < 0) throw new Error(`entity metadata type ${type} does not exist at Minecraft ${registry.version.minecraftVersion}`)
  return number
}

// A metadata list ([{key, type, value}]) with every type in `registry`'s form.
function metadataFor (registry, entries) {
  return entries.map(entry => ({ ...entry, type: metadataType(registry, entry.type) }))
}

module.exports = { metadataType, metadataFor, metadataKey, ITEM_STACK_KEY }
