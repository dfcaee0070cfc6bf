// Sizes, speeds and times left as a person reads them.

import type { DownloadProgress } from "../../api";

export function formatBytes(bytes: number, locale: string): string {
  const gb = bytes / 1e9;
  const format = (n: number, digits: number) => n.toLocaleString(locale, { maximumFractionDigits: digits });
  return gb >= 1 ? `${format(gb, 1)} GB` : `${format(bytes / 1e6, 0)} MB`;
}

/** Whole percent done, or null while the size is unknown. */
export function percentOf(progress: DownloadProgress): number | null {
  if (!progress.total) return null;
  return Math.min(100, Math.floor((progress.downloaded / progress.total) * 100));
}

/** `m:ss`, or `h:mm:ss` past an hour. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}
