'use strict'
// Prints a digest of generated chunk columns, one line per column: node chunk_digest.js GENERATOR VERSION SEED X,Z...
// (the column's blocks, biomes and light as the server would send them, hashed). Each run builds a fresh generator.
const crypto = require('crypto')

const [generatorPath, version, seed, ...places] = process.argv.slice(2)
const registry = require('prismarine-registry')(version)
const generate = require(generatorPath)({ registry, seed: Number(seed) })
for (const place of places) {
  const [x, z] = place.split(',').map(Number)
  const column = generate(x, z)
  const light = column.dumpLight()
  const digest = crypto.createHash('sha256')
  digest.update(column.dump())
  for (const section of [...light.skyLight, ...light.blockLight]) digest.update(Buffer.from(section))
  console.log(`${place} ${digest.digest('hex')}`)
}
