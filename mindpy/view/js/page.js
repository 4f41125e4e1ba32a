'use strict'
// The viewer's page: prismarine-viewer's client (public/index.js) after a script that watches its mesh workers, so
// a caller can tell when the world has been drawn: the columns handed to them, the sections still waiting to be
// meshed, and the animation frames drawn since the last mesh arrived (window.mindpyView.drawn(columns)).
// (Kept free of template placeholders: it is one template literal.)

module.exports = `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>mindpy: bot view</title>
<style>
  html, body { margin: 0; padding: 0; height: 100%; overflow: hidden; background: #000; }
  canvas { display: block; width: 100%; height: 100%; }
</style>
<script>
(function () {
  const state = { columns: new Set(), waiting: new Set(), meshes: 0, frames: 0, lastMeshFrame: -1 }
  const sectionKey = (x, y, z) => [x, y, z].map(v => Math.floor(v / 16) * 16).join(',')
  const NativeWorker = window.Worker
  let firstWorker = null
  function WatchedWorker (src, options) {
    const worker = new NativeWorker(src, options)
    if (!firstWorker) firstWorker = worker
    const post = worker.postMessage.bind(worker)
    worker.postMessage = function (message, transfer) {
      if (message && worker === firstWorker) {
        // every column goes to every worker: count them at one
        if (message.type === 'chunk') state.columns.add(message.x + ',' + message.z)
        if (message.type === 'unloadChunk') state.columns.delete(message.x + ',' + message.z)
        if (message.type === 'reset') state.columns.clear()
      }
      if (message && message.type === 'dirty') state.waiting.add(sectionKey(message.x, message.y, message.z))
      return transfer ? post(message, transfer) : post(message)
    }
    worker.addEventListener('message', ({ data }) => {
      if (!data) return
      if (data.type === 'geometry') { state.meshes++; state.lastMeshFrame = state.frames }
      if (data.type === 'sectionFinished') state.waiting.delete(data.key)
    })
    return worker
  }
  WatchedWorker.prototype = NativeWorker.prototype
  window.Worker = WatchedWorker
  function tick () { state.frames++; window.requestAnimationFrame(tick) }
  window.requestAnimationFrame(tick)
  window.mindpyView = {
    state,
    // at least this many columns received, every section meshed, a mesh shown, and two frames drawn since
    drawn (columns) {
      return state.columns.size >= Math.max(1, columns) && state.waiting.size === 0 && state.meshes > 0 &&
        state.frames - state.lastMeshFrame >= 2
    },
    summary () {
      return { columns: state.columns.size, waiting: state.waiting.size, meshes: state.meshes, frames: state.frames }
    }
  }
})()
</script>
</head>
<body>
<script src="index.js"></script>
</body>
</html>
`
