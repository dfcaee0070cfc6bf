// The hive mark, drawn like the app icon (icons/source/colmena.svg).

const HEX = (cx: number, cy: number, r: number) =>
  Array.from({ length: 6 }, (_, k) => {
    const a = ((30 + 60 * k) * Math.PI) / 180;
    return `${(cx + r * Math.cos(a)).toFixed(2)},${(cy + r * Math.sin(a)).toFixed(2)}`;
  }).join(" ");

const R = 5.2;
const D = Math.sqrt(3) * R + 1;
const CELLS = [[0, 0], ...Array.from({ length: 6 }, (_, k) => [D * Math.cos((k * Math.PI) / 3), D * Math.sin((k * Math.PI) / 3)])];

export function Logo({ size = 28 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 40 40" aria-hidden="true">
      <defs>
        <linearGradient id="logo-bg" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#FFC53D" />
          <stop offset="0.55" stopColor="#F59E0B" />
          <stop offset="1" stopColor="#C2650A" />
        </linearGradient>
      </defs>
      <rect x="1" y="1" width="38" height="38" rx="9" fill="url(#logo-bg)" />
      {CELLS.map(([dx = 0, dy = 0], i) => (
        <polygon key={i} points={HEX(20 + dx, 20 + dy, R)} fill={i === 0 ? "#3B2506" : "#FFF8E7"} />
      ))}
    </svg>
  );
}
