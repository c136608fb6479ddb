// The web server's long-lived objects (Postgres pool, queues, Redis connections), made on first use and kept on
// globalThis so hot reloads in `next dev` reuse them instead of opening new pools and connections each time.
// The one home for server singletons: add a field to ServerSingletons and a getter below.
import { type Auth, createDb, type Db, defaultWorkspaceId, storedAuthSecret } from "@opsbench/db";
import { createAuth } from "@opsbench/db/auth";
import {
  type CredentialChecker,
  type ExportQueue,
  type NotificationQueue,
  createCredentialChecker,
  createExportQueue,
  createNotificationQueue,
  createRunQueue,
  createScheduleQueue,
  createScriptValidator,
  createStudyQueue,
  type RunQueue,
  type ScheduleQueue,
  type ScriptValidator,
  type StudyQueue,
} from "@opsbench/jobs";
import Redis from "ioredis";
import { env, oidcSettings } from "@/lib/env";
import { type ChannelUpdates, createChannelUpdates } from "./channel-updates";
import { instanceMail } from "./instance-mail";

interface ServerSingletons {
  db?: Db;
  runQueue?: RunQueue;
  studyQueue?: StudyQueue;
  /** Holds the schedules' job schedulers (upserted and removed as schedules are saved, paused, resumed, deleted). */
  scheduleQueue?: ScheduleQueue;
  /** Webhook and e-mail deliveries, sent by a worker (docs/notifications.md). */
  notificationQueue?: NotificationQueue;
  /** Runs' results exports (Prometheus remote write, OTLP), sent by a worker (docs/exports.md). */
  exportQueue?: ExportQueue;
  /** Publishes on study channels (to tell watchers of an abort at once). */
  studyPublisher?: Redis;
  /** Users' own k6 scripts are checked by a worker: the web app never spawns k6. */
  scriptValidator?: ScriptValidator;
  /** Credentials being saved are checked by a worker: the web app never calls a cloud API. */
  credentialChecker?: CredentialChecker;
  /** Counters of the rate limits (rate-limit.ts). */
  rateLimitRedis?: Redis;
  /** The one Redis subscriber all server-sent-event streams share. */
  channelUpdates?: ChannelUpdates;
  /** Better Auth: accounts, sessions, workspaces and API tokens (lib/server/workspace.ts). */
  auth?: Promise<Auth>;
  defaultWorkspaceId?: Promise<string>;
}

declare global {
  var opsbenchServerSingletons: ServerSingletons | undefined;
}

globalThis.opsbenchServerSingletons ??= {};
const store: ServerSingletons = globalThis.opsbenchServerSingletons;

export const getDb = (): Db => (store.db ??= createDb(env.DATABASE_URL));
export const getRunQueue = (): RunQueue => (store.runQueue ??= createRunQueue(env.REDIS_URL));
export const getStudyQueue = (): StudyQueue => (store.studyQueue ??= createStudyQueue(env.REDIS_URL));
export const getScheduleQueue = (): ScheduleQueue => (store.scheduleQueue ??= createScheduleQueue(env.REDIS_URL));
export const getNotificationQueue = (): NotificationQueue => (store.notificationQueue ??= createNotificationQueue(env.REDIS_URL));
export const getExportQueue = (): ExportQueue => (store.exportQueue ??= createExportQueue(env.REDIS_URL));
export const getScriptValidator = (): ScriptValidator => (store.scriptValidator ??= createScriptValidator(env.REDIS_URL));
export const getCredentialChecker = (): CredentialChecker => (store.credentialChecker ??= createCredentialChecker(env.REDIS_URL));
export const getChannelUpdates = (): ChannelUpdates => (store.channelUpdates ??= createChannelUpdates(env.REDIS_URL));

function plainRedis(what: string): Redis {
  const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 3 });
  redis.on("error", (err) => console.error(`${what}: ${err.message}`));
  return redis;
}

export const getStudyPublisher = (): Redis => (store.studyPublisher ??= plainRedis("study publisher"));
export const getRateLimitRedis = (): Redis => (store.rateLimitRedis ??= plainRedis("rate limits"));

/** The value `make` resolves to, made once; a failure is not kept (e.g. Postgres was down at the first request). */
function keptOnSuccess<K extends "auth" | "defaultWorkspaceId">(
  key: K,
  make: () => NonNullable<ServerSingletons[K]>,
): NonNullable<ServerSingletons[K]> {
  const kept = store[key];
  if (kept) return kept;
  const made = make();
  store[key] = made;
  made.catch(() => {
    if (store[key] === made) store[key] = undefined;
  });
  return made;
}

/** Better Auth, made once its secret is known (from the environment, else kept in the database). */
export const getAuth = (): Promise<Auth> =>
  keptOnSuccess("auth", async () =>
    createAuth(getDb(), {
      secret: env.OPSBENCH_AUTH_SECRET ?? (await storedAuthSecret(getDb())),
      baseURL: env.OPSBENCH_PUBLIC_URL,
      oidc: oidcSettings,
      ...(instanceMail ? { mail: instanceMail, requireEmailVerification: env.OPSBENCH_REQUIRE_EMAIL_VERIFICATION } : {}),
    }),
  );

/** The "default" workspace's id, looked up once (OPSBENCH_AUTH=off acts in it). */
export const getDefaultWorkspaceId = (): Promise<string> => keptOnSuccess("defaultWorkspaceId", () => defaultWorkspaceId(getDb()));
