import { defineConfig, type Plugin } from 'vite'

/**
 * Emits `modules.json`: every chunk of the build with its modules and the chunks it imports
 * (statically or on demand), so prepare.ts can count which hls.js builds each page loads.
 */
function moduleList(): Plugin {
  return {
    name: 'module-list',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).flatMap((output) =>
        output.type === 'chunk'
          ? [
              {
                fileName: output.fileName,
                entry: output.isEntry ? output.facadeModuleId : null,
                imports: output.imports,
                dynamicImports: output.dynamicImports,
                modules: output.moduleIds,
              },
            ]
          : [],
      )
      this.emitFile({ type: 'asset', fileName: 'modules.json', source: JSON.stringify(chunks) })
    },
  }
}

export default defineConfig({
  // relative asset URLs: the spec serves the fixture folder, the build under /dist/
  base: './',
  plugins: [moduleList()],
  build: {
    rolldownOptions: { input: ['hlsjs.html', 'hlsjs-light.html'] },
    // hls.js is most of each page
    chunkSizeWarningLimit: 1024,
  },
})
