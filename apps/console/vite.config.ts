import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import postcssPresetMantine from 'postcss-preset-mantine';
import postcssSimpleVars from 'postcss-simple-vars';
import { defineConfig } from 'vite';

const apiTarget = process.env.MANIFOLD_API_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  css: {
    postcss: {
      plugins: [
        postcssPresetMantine(),
        postcssSimpleVars({
          // a library's stylesheet may contain `$word` text (swagger-ui's does); only ours must resolve
          unknown(node, name) {
            if (node.source?.input.file?.includes(`${sep}node_modules${sep}`)) return;
            throw node.error(`Undefined variable $${name}`);
          },
          variables: {
            'mantine-breakpoint-xs': '36em',
            'mantine-breakpoint-sm': '48em',
            'mantine-breakpoint-md': '62em',
            'mantine-breakpoint-lg': '75em',
            'mantine-breakpoint-xl': '88em',
          },
        }),
      ],
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 700,
  },
  server: {
    port: 5173,
    proxy: {
      '/ui': apiTarget,
      '/console-config.json': apiTarget,
      '/healthz': apiTarget,
    },
  },
});
