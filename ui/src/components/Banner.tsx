import type { ReactNode } from "react";
import { AlertTriangle, Info, ShieldCheck } from "lucide-react";

type Tone = "info" | "warning" | "danger" | "success";

const ICONS = { info: Info, warning: AlertTriangle, danger: AlertTriangle, success: ShieldCheck };

/** One sentence with its tone, and the one action that fixes it, if any
 * (an error's remedy: `app/RemedyAction`). */
export function Banner({ tone = "info", children, action, testId }: { tone?: Tone; children: ReactNode; action?: ReactNode; testId?: string }) {
  const Icon = ICONS[tone];
  return (
    <div className={`banner banner-${tone}`} role={tone === "danger" ? "alert" : "status"} data-testid={testId}>
      <Icon size={16} aria-hidden="true" />
      <div>{children}</div>
      {action && <div className="banner-action">{action}</div>}
    </div>
  );
}
