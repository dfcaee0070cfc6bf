// What an unattended run may do (a role's wake-ups in the Inbox, a job's
// runs in Cron) beyond reading, where its agent would ask. The classes that
// stay on the bus or this computer come first; what changes the person's
// other systems (HTTP endpoints that create, change or delete, with their
// credentials; remote MCP tools not marked read-only) stands apart, with what it means, so it is never ticked
// along with the rest (issue "Safe by default, round two").

import { TriangleAlert } from "lucide-react";
import { useTranslation } from "react-i18next";

import type { Risk } from "../../api";

export function GrantFields({
  classes,
  value,
  onChange,
  hint,
  testId,
  boxTestId = testId,
}: {
  /** The classes offered, in order; `act` is shown apart when present. */
  classes: Risk[];
  value: Risk[];
  onChange(next: Risk[]): void;
  hint: string;
  /** The fieldset's test id. */
  testId: string;
  /** Each box is `${boxTestId}-${risk}` (default: the fieldset's id). */
  boxTestId?: string;
}) {
  const { t } = useTranslation();
  const box = (risk: Risk) => (
    <label key={risk} className="check">
      <input
        type="checkbox"
        checked={value.includes(risk)}
        onChange={(e) => onChange(e.target.checked ? [...value, risk] : value.filter((r) => r !== risk))}
        data-testid={`${boxTestId}-${risk}`}
      />
      <span>{t(`permissions.grant.${risk}`)}</span>
    </label>
  );
  const usual = classes.filter((r) => r !== "act");
  return (
    <fieldset className="field rules-box" data-testid={testId}>
      <legend className="field-label">{t("permissions.unattended.title")}</legend>
      <p className="field-hint">{hint}</p>
      <div className="check-grid">{usual.map(box)}</div>
      {classes.includes("act") && (
        <div className="grant-act">
          {box("act")}
          <p className="field-hint grant-act-hint">
            <TriangleAlert size={14} aria-hidden="true" />
            <span>{t("permissions.unattended.actHint")}</span>
          </p>
        </div>
      )}
    </fieldset>
  );
}
