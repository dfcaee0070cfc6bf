// Scheduled jobs (the Cron view, SPEC H25): one wrapper per command. With
// the app's scheduler running, changes go through it; `trigger` rejects with
// `precondition` / `no_scheduler` when no scheduler runs.

import {
  commands,
  type CronJobUpdate_Deserialize,
  type CronJob_Serialize,
  type CronRun_Serialize,
  type HistoryStatus,
  type MissedPolicy,
  type NewCronJob_Deserialize,
  type Schedule,
  type SchedulerStatus,
  type Target,
  type TriggerKind,
  type TriggerReceipt,
} from "../bindings";
import { toApiError } from "./errors";

export type CronJob = CronJob_Serialize;
export type CronRun = CronRun_Serialize;
export type NewCronJob = NewCronJob_Deserialize;
export type CronJobUpdate = CronJobUpdate_Deserialize;
export type CronSchedule = Schedule;
export type CronTarget = Target;
export type { HistoryStatus, MissedPolicy, SchedulerStatus, TriggerKind, TriggerReceipt };

async function call<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw toApiError(error);
  }
}

export const cronApi = {
  list: () => call(commands.listCronJobs()),
  get: (id: string) => call(commands.getCronJob(id)),
  create: (input: NewCronJob) => call(commands.createCronJob(input)),
  update: (id: string, input: CronJobUpdate) => call(commands.updateCronJob(id, input)),
  remove: (id: string) => call(commands.deleteCronJob(id)),
  pause: (id: string) => call(commands.pauseCronJob(id)),
  resume: (id: string) => call(commands.resumeCronJob(id)),
  trigger: (id: string) => call(commands.triggerCronJob(id)),
  history: (id: string, limit: number | null = null) => call(commands.cronJobHistory(id, limit)),
  scheduler: () => call(commands.cronSchedulerStatus()),
  preview: (schedule: CronSchedule, timeZone: string, count: number) =>
    call(commands.previewCronSchedule(schedule, timeZone, count)),
};
