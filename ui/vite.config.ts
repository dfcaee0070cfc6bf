/// <reference types="vitest/config" />
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Each view's chunk and each language's have a fixed name,
// `assets/view-<id>.js` (CatalogView.tsx → view-catalog.js) and
// `assets/lang-<lang>.js`: the shell starts fetching the ones the window
// opens with before the main bundle has run (src-tauri/src/window.rs,
// `first_frame_preload`). The app's assets are embedded in its binary, so
// no cache needs a hash in the name.
const VIEW_MODULE = /\/features\/\w+\/(\w+)View\.tsx$/;
const LANGUAGE_MODULE = /\/i18n\/catalog\.(\w+)\.ts$/;

function chunkFileNames(chunk: { facadeModuleId?: string | null }): string {
  const module = chunk.facadeModuleId ?? "";
  const view = module.match(VIEW_MODULE)?.[1];
  if (view) return `assets/view-${view.toLowerCase()}.js`;
  const language = module.match(LANGUAGE_MODULE)?.[1];
  if (language) return `assets/lang-${language}.js`;
  return "assets/[name]-[hash].js";
}

// The Tauri shell loads ui/dist (embedded) or this dev server on port 1420.
export default defineConfig({
  plugins: [react()],
  clearScreen: false,
  server: { port: 1420, strictPort: true },
  build: {
    target: "safari16",
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    rolldownOptions: { output: { chunkFileNames } },
  },
  test: {
    environment: "jsdom",
    setupFiles: ["./src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
  },
});
