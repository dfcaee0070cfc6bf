import { useTranslation } from "react-i18next";
import { FileText, Sparkles } from "lucide-react";

import type { ApiError } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { errorText } from "../../app/errorText";

/** Step 3: a sample canvas — one short news item and two drafts ready to
 * generate — or straight into the app. Either way the chosen specialists
 * are installed now. */
export function SampleStep({
  hasModel,
  specialists,
  busy,
  error,
  onBack,
  onFinish,
}: {
  hasModel: boolean;
  specialists: number;
  busy: "sample" | "skip" | null;
  error: ApiError | null;
  onBack(): void;
  onFinish(withSample: boolean): void;
}) {
  const { t } = useTranslation();
  return (
    <section className="first-run-step" aria-labelledby="step-sample-title" data-testid="step-sample">
      <header>
        <h2 id="step-sample-title">{t("onboarding.sample.title")}</h2>
        <p className="muted">{t("onboarding.sample.body")}</p>
      </header>
      <div className="sample-preview card">
        <div className="sample-item">
          <FileText size={18} aria-hidden="true" />
          <div>
            <strong>{t("onboarding.sample.itemTitle")}</strong>
            <p className="muted small">{t("onboarding.sample.itemBody")}</p>
          </div>
        </div>
        <div className="sample-variants">
          {(["brief", "thread"] as const).map((v) => (
            <div key={v} className="sample-variant">
              <Sparkles size={15} aria-hidden="true" />
              <div>
                <strong>{t(`onboarding.sample.${v}`)}</strong>
                <p className="muted small">{t(`onboarding.sample.${v}Body`)}</p>
              </div>
            </div>
          ))}
        </div>
      </div>
      <p className="muted small" data-testid="sample-summary">
        {hasModel ? t("onboarding.sample.withModel") : t("onboarding.sample.withoutModel")}{" "}
        {t("onboarding.sample.specialists", { count: specialists })}
      </p>
      {error && <Banner tone="danger">{errorText(t, error)}</Banner>}
      <footer className="first-run-foot">
        <Button variant="ghost" onClick={onBack} disabled={busy !== null} data-testid="sample-back">
          {t("onboarding.back")}
        </Button>
        <span className="first-run-spacer" />
        <Button variant="secondary" busy={busy === "skip"} disabled={busy !== null} onClick={() => onFinish(false)} data-testid="sample-skip">
          {t("onboarding.sample.skip")}
        </Button>
        <Button variant="primary" busy={busy === "sample"} disabled={busy !== null} onClick={() => onFinish(true)} data-testid="sample-open">
          {t("onboarding.sample.open")}
        </Button>
      </footer>
    </section>
  );
}
