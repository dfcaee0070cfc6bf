import { useRef, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Check, Moon, Sun } from "lucide-react";

import { api, inboxApi, onboardingApi, type ApiError, type ConnectionCheck, type Connected, type SetupStatus } from "../../api";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Field } from "../../components/Field";
import { Logo } from "../../components/Logo";
import { usePreferences } from "../../app/preferences";
import { generateOnOpen } from "../canvas/firstDraft";
import { canvasKeys } from "../canvas/queries";
import { catalogKeys } from "../catalog/queries";
import { inboxKeys } from "../inbox/queries";
import { ConnectModelPanel } from "../providers/ConnectModelPanel";
import { defaultModelQuery } from "../runs/queries";
import { SampleStep } from "./SampleStep";
import { SpecialistsStep } from "./SpecialistsStep";
import { STEPS, defaultChoice, stepIndex, type Step } from "./steps";

/** What the last step makes: the first canvas (about what the person
 * pasted, else the sample) or none. */
interface Ending {
  withCanvas: boolean;
  topic?: string;
}

/** The first run of a new workspace (issue 12), in three steps: connect a
 * model, pick specialists described in words, then open a first canvas —
 * about something the person pastes (text or a link), else the sample —
 * with two drafts that start writing as it opens. Nothing but the model is
 * saved until the end, which installs the specialists (SPEC H32) and, if
 * asked, makes the canvas and lands on it. A server found on this machine
 * is connected by itself, so "Finish" on the first step is the one click
 * to the first streamed draft (issue 37): it tests the model if that was
 * not done, then takes every default. */
export function FirstRunScreen({ status }: { status: SetupStatus }) {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const [step, setStep] = useState<Step>("connect");
  const [working, setWorking] = useState<ConnectionCheck | null>(null);
  const [connected, setConnected] = useState<Connected | null>(null);
  const [name, setName] = useState("");
  // The person's name, saved as the first step is left (kept if left empty).
  const saveName = useMutation<unknown, ApiError, void>({
    mutationFn: async () => (name.trim() ? inboxApi.setMyName(name) : null),
    onSuccess: () => void client.invalidateQueries({ queryKey: inboxKeys.authors }),
  });
  const leaveConnect = (next: () => void) => saveName.mutate(undefined, { onSuccess: next });
  const [chosen, setChosen] = useState<string[]>(() => defaultChoice(status.personas));
  const [install, setInstall] = useState<string[]>(chosen);
  const hasDefault = Boolean(useQuery(defaultModelQuery).data);
  const hasModel = Boolean(working) || hasDefault;
  // Made once: trying again after a failed install does not make a second.
  const sampleMade = useRef(false);
  // "Finish" on the first step: the model's test if not done, then every default.
  const finishNow = useMutation<SetupStatus, ApiError, Connected>({
    mutationFn: async (made) => {
      if (name.trim()) await inboxApi.setMyName(name);
      if (!working) {
        const modelId = made.models[0]?.id;
        if (modelId) setWorking(await onboardingApi.testConnection(modelId, () => {}));
      }
      return finish.mutateAsync({ withCanvas: true });
    },
  });

  const finish = useMutation<SetupStatus, ApiError, Ending>({
    mutationFn: async ({ withCanvas, topic }) => {
      if (withCanvas && !sampleMade.current) {
        const sample = await onboardingApi.openSampleCanvas(i18n.language, topic?.trim() || null);
        sampleMade.current = true;
        // With a model to write with, the drafts start as the canvas opens.
        if (hasModel) generateOnOpen(sample.id);
      }
      // The shell opens on this view once setup reads as completed.
      if (withCanvas) window.location.hash = "#/canvas";
      return api.applySeed(install);
    },
    onSuccess: () => {
      for (const key of [catalogKeys.setup, catalogKeys.agents, catalogKeys.tools, catalogKeys.skills, canvasKeys.all]) {
        void client.invalidateQueries({ queryKey: key });
      }
    },
  });

  return (
    <div className="first-run" data-testid="first-run" data-step={step}>
      <div className="first-run-inner">
        <header className="first-run-head">
          <Logo size={44} />
          <div className="first-run-title">
            <h1>{t("onboarding.welcome")}</h1>
            <p className="muted">{t("onboarding.intro")}</p>
          </div>
          <AppearanceSwitch />
        </header>
        <ol className="first-run-steps" aria-label={t("onboarding.stepsLabel")}>
          {STEPS.map((s, n) => {
            const state = n < stepIndex(step) ? "done" : s === step ? "current" : "todo";
            return (
              <li key={s} className={`first-run-stepper-item stepper-${state}`} aria-current={s === step ? "step" : undefined} data-testid={`stepper-${s}`}>
                <span className="stepper-dot" aria-hidden="true">
                  {state === "done" ? <Check size={13} /> : n + 1}
                </span>
                {t(`onboarding.steps.${s}`)}
              </li>
            );
          })}
        </ol>

        {step === "connect" && (
          <section className="first-run-step" aria-labelledby="step-connect-title" data-testid="step-connect">
            <header>
              <h2 id="step-connect-title">{t("onboarding.connect.title")}</h2>
              <p className="muted">{t("onboarding.connect.body")}</p>
            </header>
            <Field id="first-run-name" label={t("onboarding.name.label")} hint={t("onboarding.name.hint")} error={saveName.error ? errorText(t, saveName.error) : undefined}>
              <input
                id="first-run-name"
                className="input first-run-name"
                value={name}
                autoComplete="given-name"
                placeholder={t("onboarding.name.placeholder")}
                onChange={(e) => setName(e.target.value)}
                data-testid="first-run-name"
              />
            </Field>
            <ConnectModelPanel onWorking={setWorking} onConnected={setConnected} autoConnect />
            {finishNow.error && <Banner tone="danger" testId="connect-finish-error">{errorText(t, finishNow.error)}</Banner>}
            <footer className="first-run-foot">
              <span className="first-run-spacer" />
              {!working && !connected && (
                <Button variant="ghost" onClick={() => leaveConnect(() => setStep("specialists"))} data-testid="connect-skip">
                  {t("onboarding.connect.skip")}
                </Button>
              )}
              <Button variant={connected ? "secondary" : "primary"} disabled={!working} busy={saveName.isPending} onClick={() => leaveConnect(() => setStep("specialists"))} data-testid="connect-continue">
                {connected ? t("onboarding.connect.choose") : t("onboarding.continue")}
              </Button>
              {connected && (
                <Button
                  variant="primary"
                  busy={finishNow.isPending}
                  title={t("onboarding.connect.finishHint")}
                  onClick={() => finishNow.mutate(connected)}
                  data-testid="connect-finish"
                >
                  {t("onboarding.finish")}
                </Button>
              )}
            </footer>
          </section>
        )}

        {step === "specialists" && (
          <SpecialistsStep
            personas={status.personas}
            chosen={chosen}
            onChange={setChosen}
            onBack={() => setStep("connect")}
            onNext={(ids) => {
              setInstall(ids);
              setStep("sample");
            }}
          />
        )}

        {step === "sample" && (
          <SampleStep
            hasModel={hasModel}
            specialists={install.length}
            busy={finish.isPending ? (finish.variables?.withCanvas ? "sample" : "skip") : null}
            error={finish.error}
            onBack={() => setStep("specialists")}
            onFinish={(withCanvas, topic) => finish.mutate({ withCanvas, topic })}
          />
        )}
      </div>
    </div>
  );
}

/** Language and theme from the very first screen. */
function AppearanceSwitch() {
  const { t } = useTranslation();
  const prefs = usePreferences();
  const nextTheme = prefs.resolvedTheme === "dark" ? "light" : "dark";
  return (
    <div className="first-run-appearance">
      <div className="lang-switch" role="radiogroup" aria-label={t("appearance.language")}>
        {(["en", "es"] as const).map((lang) => (
          <button
            key={lang}
            type="button"
            role="radio"
            aria-checked={prefs.language === lang}
            className={prefs.language === lang ? "active" : ""}
            title={t(`language.${lang}`)}
            onClick={() => prefs.setLanguage(lang)}
            data-testid={`first-run-lang-${lang}`}
          >
            {lang.toUpperCase()}
          </button>
        ))}
      </div>
      <button
        type="button"
        className="chip-btn"
        onClick={() => prefs.setTheme(nextTheme)}
        aria-label={t(`appearance.themes.${nextTheme}`)}
        title={t(`appearance.themes.${nextTheme}`)}
        data-testid="first-run-theme"
      >
        {prefs.resolvedTheme === "dark" ? <Sun size={15} /> : <Moon size={15} />}
      </button>
    </div>
  );
}
