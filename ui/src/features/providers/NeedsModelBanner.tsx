// The one place the app says an agent cannot run for lack of a model or a
// key (issue 12), with the button that fixes it: "Connect a model" opens
// the first run's connect step as a dialog. Mounted once, in the shell.
//
// It shows while no enabled model or no usable default exists, and after
// any action fails for that reason (a Generate or Run answered `no_model`,
// `auth_refused`…): it watches the mutation cache, so no view has to
// repeat the message or the fix.

import { useEffect, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Plug, X } from "lucide-react";

import { ApiError } from "../../api";
import { RemedyAction } from "../../app/RemedyAction";
import { Button, IconButton } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { errorText } from "../../app/errorText";
import { enabledModelsQuery } from "../catalog/queries";
import { defaultModelQuery } from "../runs/queries";
import { ConnectModelPanel } from "./ConnectModelPanel";
import { missingModel, modelProblemOf, onModelProblem } from "./needsModel";

/** Models exist, none is the default: the fix is choosing one. */
const NO_DEFAULT = new ApiError("precondition", "no default model", { reason: "no_default" });

export function NeedsModelBanner() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const enabled = useQuery(enabledModelsQuery).data;
  const defaultId = useQuery(defaultModelQuery).data;
  const missing = missingModel(enabled, defaultId);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [open, setOpen] = useState(false);

  useEffect(
    () =>
      client.getMutationCache().subscribe((event) => {
        if (event.type !== "updated") return;
        const problem = modelProblemOf(event.mutation.state);
        if (problem) setFailure(problem);
      }),
    [client],
  );
  useEffect(() => onModelProblem(setFailure), []);

  if (!missing && !failure && !open) return null;
  return (
    <>
      {(missing || failure) && (
        <div className="needs-model" role="status" data-testid="needs-model-banner" data-reason={failure ? "failed" : missing}>
          <Plug size={18} aria-hidden="true" className="needs-model-icon" />
          <div className="needs-model-text">
            <strong>{missing ? t(`onboarding.needsModel.${missing}`) : t("onboarding.needsModel.failed")}</strong>
            <span className="muted small">{failure ? errorText(t, failure) : t("onboarding.needsModel.body")}</span>
          </div>
          {failure ? (
            <RemedyAction error={failure} onConnect={() => setOpen(true)} />
          ) : missing === "no_default" ? (
            <RemedyAction error={NO_DEFAULT} />
          ) : (
            <Button variant="primary" size="sm" onClick={() => setOpen(true)} data-testid="needs-model-fix">
              {t("onboarding.needsModel.fix")}
            </Button>
          )}
          {failure && !missing && (
            <IconButton label={t("common.close")} onClick={() => setFailure(null)} data-testid="needs-model-dismiss">
              <X size={15} />
            </IconButton>
          )}
        </div>
      )}
      {open && (
        <Dialog title={t("onboarding.connect.title")} onClose={() => setOpen(false)} closeLabel={t("common.close")} testId="connect-dialog" width={720}>
          <p className="muted connect-dialog-intro">{t("onboarding.connect.body")}</p>
          <ConnectModelPanel onWorking={() => setFailure(null)} />
        </Dialog>
      )}
    </>
  );
}
