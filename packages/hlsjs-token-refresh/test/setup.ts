// hls.js's BaseLoader.retry() logs the global `status` (window.status in browsers), which
// happy-dom does not define: without it every loader retry throws a ReferenceError here.
Object.assign(globalThis, { status: '' })
