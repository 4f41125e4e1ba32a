'use strict'
// Generation alone: node generate_chunks.js GENERATOR VERSION SEED COUNT -> one JSON line {chunks, seconds}.
// Columns in a square around the origin, as a player walking out would need them; the first 16, before the
// timing, warm the code up.
const [generatorPath, version, seed, count] = process.argv.slice(2)
const registry = require('prismarine-registry')(version)
const generate = require(generatorPath)({ registry, seed: Number(seed) })
for (let i = 0; i < 16; i++) generate(1000 + i, 1000)
const side = Math.ceil(Math.sqrt(Number(count)))
const start = process.hrtime.bigint()
let chunks = 0
for (let x = 0; x < side && chunks < count; x++) {
  for (let z = 0; z < side && chunks < count; z++, chunks++) generate(x - (side >> 1), z - (side >> 1))
}
const seconds = Number(process.hrtime.bigint() - start) / 1e9
console.log(JSON.stringify({ chunks, seconds }))
