// What the endpoint's form shows beside the fields: the request the model
// would send, computed by the backend from the draft and the sample
// arguments (secret headers masked there, never here), and a test's answer.

import { useTranslation } from "react-i18next";
import { CircleAlert, CircleCheck, Lock, X } from "lucide-react";

import type { EndpointRequest, EndpointTestResult } from "../../api";
import { IconButton } from "../../components/Button";

export function RequestView({ request, testId }: { request: EndpointRequest; testId?: string }) {
  const { t } = useTranslation();
  return (
    <div className="endpoint-request" data-testid={testId}>
      <div className="endpoint-request-line">
        <span className={`endpoint-method endpoint-method-${request.method.toLowerCase()}`}>{request.method}</span>
        <code className="endpoint-url" data-testid="endpoint-preview-url">
          {request.url}
        </code>
      </div>
      {request.headers.length > 0 && (
        <ul className="endpoint-headers">
          {request.headers.map((header, index) => (
            <li key={`${header.name}-${index}`} className={header.secret ? "endpoint-header endpoint-header-secret" : "endpoint-header"} data-testid={header.secret ? "endpoint-preview-secret" : undefined}>
              <code>
                <strong>{header.name}:</strong> {header.value}
              </code>
              {header.secret && (
                <span className="endpoint-masked" title={t("endpoints.preview.masked")}>
                  <Lock size={12} aria-hidden="true" /> {t("endpoints.preview.masked")}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      {request.body && (
        <pre className="endpoint-body" data-testid="endpoint-preview-body">
          {request.body}
        </pre>
      )}
    </div>
  );
}

export function TestResultView({ result, onClose }: { result: EndpointTestResult; onClose?: () => void }) {
  const { t } = useTranslation();
  return (
    <div className={result.ok ? "mcp-test mcp-test-ok" : "mcp-test"} data-testid="endpoint-test-result">
      <div className="mcp-test-head">
        {result.ok ? <CircleCheck size={16} className="mcp-ok-icon" aria-hidden="true" /> : <CircleAlert size={16} className="endpoint-bad-icon" aria-hidden="true" />}
        <strong data-testid="endpoint-test-status">{t("endpoints.test.status", { status: result.status })}</strong>
        {result.contentType && <code className="muted small">{result.contentType}</code>}
        <span className="muted small">{t("endpoints.test.duration", { ms: result.durationMs })}</span>
        {onClose && (
          <IconButton label={t("endpoints.test.close")} className="mcp-test-close" onClick={onClose}>
            <X size={14} />
          </IconButton>
        )}
      </div>
      {result.note && <p className="muted small">{result.note}</p>}
      {result.truncated && <p className="muted small">{t("endpoints.test.truncated")}</p>}
      <pre className="endpoint-body endpoint-answer" data-testid="endpoint-test-body">
        {result.body}
      </pre>
      {result.headers.length > 0 && (
        <details className="mcp-tools-details">
          <summary className="muted small">{t("endpoints.test.headers", { count: result.headers.length })}</summary>
          <ul className="endpoint-headers">
            {result.headers.map((header, index) => (
              <li key={`${header.name}-${index}`} className="endpoint-header">
                <code>
                  <strong>{header.name}:</strong> {header.value}
                </code>
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
