import { useState } from "react";
import { useTranslation } from "react-i18next";
import { FileText, Sparkles } from "lucide-react";

import type { ApiError } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { errorText } from "../../app/errorText";

/** Step 3: a first canvas about something the person pastes (text or a
 * link), or the sample — one short news item — each with two drafts that
 * start writing as it opens; or straight into the app. Either way the
 * chosen specialists are installed now. */
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
  onFinish(withCanvas: boolean, topic?: string): void;
}) {
  const { t } = useTranslation();
  const [topic, setTopic] = useState("");
  const pasted = topic.trim() !== "";
  return (
    <section className="first-run-step" aria-labelledby="step-sample-title" data-testid="step-sample">
      <header>
        <h2 id="step-sample-title">{t("onboarding.sample.title")}</h2>
        <p className="muted">{t("onboarding.sample.body")}</p>
      </header>
      <label className="sample-topic" htmlFor="sample-topic">
        <span>{t("onboarding.sample.topicLabel")}</span>
        <textarea
          id="sample-topic"
          className="input textarea"
          rows={3}
          value={topic}
          placeholder={t("onboarding.sample.topicPlaceholder")}
          onChange={(e) => setTopic(e.target.value)}
          data-testid="sample-topic"
        />
        <span className="muted small">{pasted ? t("onboarding.sample.topicUsed") : t("onboarding.sample.topicFallback")}</span>
      </label>
      <div className={pasted ? "sample-preview card sample-preview-unused" : "sample-preview card"}>
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
        <Button variant="primary" busy={busy === "sample"} disabled={busy !== null} onClick={() => onFinish(true, pasted ? topic : undefined)} data-testid="sample-open">
          {pasted ? t("onboarding.sample.openTopic") : t("onboarding.sample.open")}
        </Button>
      </footer>
    </section>
  );
}
