// A view that throws while rendering takes only itself down: without this,
// React unmounts the whole tree and the window goes blank, sidebar and all,
// with no way back but a restart. The error is shown in the view's place
// with a way to try again; moving to another view (a new `resetKey`) starts
// afresh.

import { Component } from "react";
import type { ErrorInfo, ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { RotateCcw, TriangleAlert } from "lucide-react";

import { Button } from "./Button";

interface Props {
  /** Changing it clears a shown error (the person went elsewhere). */
  resetKey: string;
  children: ReactNode;
}

interface State {
  error: Error | null;
  resetKey: string;
}

export class ViewBoundary extends Component<Props, State> {
  state: State = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey === state.resetKey ? null : { error: null, resetKey: props.resetKey };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error("a view failed to render:", error, info.componentStack);
  }

  render() {
    if (!this.state.error) return this.props.children;
    return <ViewFailed error={this.state.error} onRetry={() => this.setState({ error: null })} />;
  }
}

function ViewFailed({ error, onRetry }: { error: Error; onRetry(): void }) {
  const { t } = useTranslation();
  return (
    <div className="page">
      <div className="empty-state view-failed" role="alert" data-testid="view-failed">
        <div className="empty-icon">
          <TriangleAlert size={26} aria-hidden="true" />
        </div>
        <h3>{t("defects.viewFailed.title")}</h3>
        <p>{t("defects.viewFailed.body")}</p>
        <pre className="view-failed-message">{error.message}</pre>
        <Button variant="primary" icon={<RotateCcw size={14} />} onClick={onRetry} data-testid="view-retry">
          {t("defects.viewFailed.retry")}
        </Button>
      </div>
    </div>
  );
}
