import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { shellApi, type ApiError, type DesktopSettings, type UpdateOffer } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Spinner } from "../../components/Spinner";
import { Switch } from "../../components/Switch";

const desktopKey = ["desktop-settings"] as const;

/** How Colmena lives on the desktop (issue 16): in the tray when the window
 * closes, and from login. */
export function DesktopSection() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const settings = useQuery({ queryKey: desktopKey, queryFn: shellApi.settings });
  const onSaved = (next: DesktopSettings) => client.setQueryData(desktopKey, next);
  const tray = useMutation<DesktopSettings, ApiError, boolean>({ mutationFn: shellApi.setKeepInTray, onSuccess: onSaved });
  const login = useMutation<DesktopSettings, ApiError, boolean>({ mutationFn: shellApi.setStartAtLogin, onSuccess: onSaved });
  const check = useMutation<UpdateOffer | null, ApiError>({ mutationFn: shellApi.checkForUpdate });
  const install = useMutation<null, ApiError>({ mutationFn: shellApi.installUpdate });
  const data = settings.data;
  const error = tray.error ?? login.error ?? settings.error;
  const offer = check.data;
  return (
    <section className="section" data-testid="section-desktop">
      <header className="section-head">
        <div>
          <h2>{t("desktop.title")}</h2>
          <p className="section-subtitle">{t("desktop.subtitle")}</p>
        </div>
      </header>
      {error && <Banner tone="danger">{error.message}</Banner>}
      {/* The tray is tried just after the first frame: its answer waits
          for it, and the switches show only the answer, never a guess. */}
      {!data && !error && <Spinner />}
      {data && (
      <div className="card settings-card desktop-settings">
        <div className="setting-row">
          <div>
            <h3>{t("desktop.keepInTray")}</h3>
            <p className="muted small">
              {data && !data.trayAvailable ? t("desktop.noTray") : t("desktop.keepInTrayHint")}
            </p>
          </div>
          <Switch
            checked={Boolean(data?.keepInTray && data.trayAvailable)}
            disabled={!data?.trayAvailable || tray.isPending}
            onChange={(on) => tray.mutate(on)}
            label={t("desktop.keepInTray")}
            testId="desktop-keep-in-tray"
          />
        </div>
        <div className="setting-row">
          <div>
            <h3>{t("desktop.startAtLogin")}</h3>
            <p className="muted small">{t("desktop.startAtLoginHint")}</p>
          </div>
          <Switch
            checked={Boolean(data?.startAtLogin)}
            disabled={!data || login.isPending}
            onChange={(on) => login.mutate(on)}
            label={t("desktop.startAtLogin")}
            testId="desktop-start-at-login"
          />
        </div>
        <div className="setting-row">
          <div>
            <h3>{t("desktop.updates")}</h3>
            <p className="muted small" data-testid="desktop-update-status">
              {check.isError
                ? check.error.message
                : offer
                  ? t("desktop.updateAvailable", { version: offer.version, current: offer.currentVersion })
                  : check.isSuccess
                    ? t("desktop.upToDate")
                    : t("desktop.updatesHint")}
            </p>
            {install.error && <p className="field-error">{install.error.message}</p>}
          </div>
          {offer ? (
            <Button variant="primary" busy={install.isPending} onClick={() => install.mutate()} data-testid="desktop-install-update">
              {t("desktop.install")}
            </Button>
          ) : (
            <Button busy={check.isPending} onClick={() => check.mutate()} data-testid="desktop-check-update">
              {t("desktop.check")}
            </Button>
          )}
        </div>
      </div>
      )}
    </section>
  );
}
