// Reports the first painted frame, as Colmena's UI does (two animation
// frames after the content is in the document).
requestAnimationFrame(() =>
  requestAnimationFrame(() => window.__TAURI_INTERNALS__.invoke("painted").catch(() => {})),
);
