// sharp's side of scripts/bench-images.sh: the same photo, resized to fit
// 1024 px and encoded as lossy WebP q80; median of 5 after one warm-up,
// with libvips' default threads and with one thread.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(join(process.env.SHARP_DIR, "package.json"));
const sharp = require("sharp");
const input = readFileSync(process.argv[2]);

async function run(label) {
  const times = [];
  let info;
  for (let i = 0; i < 6; i++) {
    const started = process.hrtime.bigint();
    const out = await sharp(input).resize(1024, 1024, { fit: "inside" }).webp({ quality: 80 }).toBuffer({ resolveWithObject: true });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (i > 0) times.push(ms);
    info = out.info;
  }
  times.sort((a, b) => a - b);
  console.log(
    `sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips}, ${label}) -> ${info.width}x${info.height} WebP q80: ` +
      `median ${times[2].toFixed(0)} ms (min ${times[0].toFixed(0)}, max ${times[4].toFixed(0)}), ${(info.size / 1024).toFixed(1)} KB`,
  );
}

const threads = sharp.concurrency();
await run(`default: ${threads} thread${threads === 1 ? "" : "s"}`);
sharp.concurrency(1);
await run("1 thread");
