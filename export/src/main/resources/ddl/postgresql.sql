-- schedlens warehouse tables for PostgreSQL (./schedlens export --to jdbc:postgresql://...).
-- One row per pod (its final timeline), one per preemption victim, one per workload (its latest
-- timeline) with its interruption and degraded intervals as child rows; the whole timeline is kept
-- as JSON too, so that fields added later are not lost. Times are timestamptz (UTC), durations
-- milliseconds, GPU work GPU-seconds. A row is replaced only by a newer version of the same key
-- (updated_at). The exporter creates these when missing and adds columns added since.

CREATE TABLE IF NOT EXISTS pod_timelines (
  uid                         text PRIMARY KEY,
  namespace                   text,
  name                        text,
  node                        text,
  priority_class              text,
  priority                    integer,
  workload_kind               text,
  workload_name               text,
  application                 text,
  experiment                  text,
  arm                         text,
  repeat                      text,
  created_at                  timestamptz,
  scheduled_at                timestamptz,
  running_at                  timestamptz,
  ready_at                    timestamptz,
  first_ok_request_at         timestamptz,
  terminated_at               timestamptz,
  pending_ms                  bigint,
  never_scheduled             boolean,
  startup_ms                  bigint,
  model_load_ms               bigint,
  time_to_ready_ms            bigint,
  time_to_first_ok_ms         bigint,
  failed_scheduling_count     integer,
  preemption_attempted        boolean,
  nominated_node              text,
  preempted_at                timestamptz,
  preemptor_uid               text,
  gpus                        integer,
  allocated_gpu_seconds       double precision,
  busy_gpu_seconds            double precision,
  idle_allocated_gpu_seconds  double precision,
  unsampled_gpu_seconds       double precision,
  wasted_gpu_seconds          double precision,
  wasted_busy_gpu_seconds     double precision,
  requests                    bigint,
  errors                      bigint,
  slo_breaches                bigint,
  latency_p50_ms              double precision,
  latency_p95_ms              double precision,
  latency_p99_ms              double precision,
  restarts                    integer,
  outcome                     text,
  disruption_cause            text,
  disruption_at               timestamptz,
  disruption_by               text,
  preemptions_of_workload     integer,
  starving                    boolean,
  updated_at                  timestamptz NOT NULL,
  timeline                    jsonb NOT NULL,
  exported_at                 timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS pod_timelines_experiment ON pod_timelines (experiment, arm, repeat);
CREATE INDEX IF NOT EXISTS pod_timelines_created ON pod_timelines (created_at);

CREATE TABLE IF NOT EXISTS preemptions (
  victim_uid                  text PRIMARY KEY,
  victim_namespace            text,
  victim_name                 text,
  victim_priority_class       text,
  victim_priority             integer,
  preemptor_uid               text,
  preemptor_namespace         text,
  preemptor_name              text,
  preemptor_priority_class    text,
  preemptor_priority          integer,
  node                        text,
  preempted_at                timestamptz NOT NULL,
  wasted_gpu_seconds          double precision,
  experiment                  text,
  arm                         text,
  repeat                      text
);

-- Added with PodTimeline v6: allocated GPU time no sample covers (missing data, not idle).
ALTER TABLE pod_timelines ADD COLUMN IF NOT EXISTS unsampled_gpu_seconds double precision;

-- Added with PodTimeline v7: 'end-of-recording' on a replay's timeline of a pod the recording
-- ended on (its numbers stop at its latest recorded input).
ALTER TABLE pod_timelines ADD COLUMN IF NOT EXISTS ended_by text;

-- Added with PodTimeline v8: Kueue's queue (the LocalQueue, the admission that let the pod exist
-- or run, the wait for it) and the part of Pending behind scheduling gates.
ALTER TABLE pod_timelines ADD COLUMN IF NOT EXISTS queue text;
ALTER TABLE pod_timelines ADD COLUMN IF NOT EXISTS admitted_at timestamptz;
ALTER TABLE pod_timelines ADD COLUMN IF NOT EXISTS queue_wait_ms bigint;
ALTER TABLE pod_timelines ADD COLUMN IF NOT EXISTS gated_ms bigint;
-- Added with PodTimeline v9: shared GPUs. The GPU resource the pod requested (nvidia.com/gpu, a
-- MIG profile's nvidia.com/mig-*, a time-sliced nvidia.com/gpu.shared), the part of a physical
-- GPU each device is, and whether other pods may hold the same GPU. The GPU-seconds columns are
-- GPU-equivalents (gpus x gpu_share x time); a row without gpu_share is a whole-GPU one.
ALTER TABLE pod_timelines ADD COLUMN IF NOT EXISTS gpu_resource text;
ALTER TABLE pod_timelines ADD COLUMN IF NOT EXISTS gpu_share double precision;
ALTER TABLE pod_timelines ADD COLUMN IF NOT EXISTS gpu_shared boolean;
-- A victim of the scheduler ('preemption') or of Kueue ('queue-preemption', no preemptor pod).
ALTER TABLE preemptions ADD COLUMN IF NOT EXISTS cause text;
ALTER TABLE preemptions ADD COLUMN IF NOT EXISTS queue text;

-- Added with the preemptions from the victim's workload and the wasted busy part.
ALTER TABLE preemptions ADD COLUMN IF NOT EXISTS victim_workload_kind text;
ALTER TABLE preemptions ADD COLUMN IF NOT EXISTS victim_workload_name text;
ALTER TABLE preemptions ADD COLUMN IF NOT EXISTS victim_gpus integer;
ALTER TABLE preemptions ADD COLUMN IF NOT EXISTS preemptor_inferred boolean;
ALTER TABLE preemptions ADD COLUMN IF NOT EXISTS wasted_busy_gpu_seconds double precision;
ALTER TABLE preemptions ADD COLUMN IF NOT EXISTS application text;
ALTER TABLE preemptions ADD COLUMN IF NOT EXISTS updated_at timestamptz;

-- One row per workload (namespace/kind/name, with /controller-uid when the workload is its pods'
-- controller: each Job created again under the same name is another workload): its latest timeline.
CREATE TABLE IF NOT EXISTS workload_timelines (
  workload_key                text PRIMARY KEY,
  namespace                   text NOT NULL,
  kind                        text NOT NULL,
  name                        text NOT NULL,
  controller_uid              text,
  application                 text,
  priority_class              text,
  experiment                  text,
  arm                         text,
  repeat                      text,
  desired_source              text,
  desired                     integer,
  ready                       integer,
  interruption_ms             bigint,
  degraded_ms                 bigint,
  pods                        integer,
  restarts                    integer,
  preemptions                 integer,
  evictions                   integer,
  requests                    bigint,
  errors                      bigint,
  slo_breaches                bigint,
  updated_at                  timestamptz NOT NULL,
  timeline                    jsonb NOT NULL,
  exported_at                 timestamptz NOT NULL DEFAULT now()
);

-- Its interruption and degraded intervals (type), replaced with their workload's row.
CREATE TABLE IF NOT EXISTS workload_intervals (
  workload_key                text NOT NULL REFERENCES workload_timelines (workload_key) ON DELETE CASCADE,
  namespace                   text,
  kind                        text,
  name                        text,
  controller_uid              text,
  application                 text,
  type                        text NOT NULL,
  started_at                  timestamptz NOT NULL,
  ended_at                    timestamptz,
  duration_ms                 bigint,
  cause                       text,
  pod                         text,
  arm                         text,
  repeat                      text,
  errors                      bigint,
  slo_breaches                bigint,
  updated_at                  timestamptz
);

CREATE INDEX IF NOT EXISTS workload_intervals_workload ON workload_intervals (workload_key);

-- Where the export stands in the topic, committed in the same transaction as the rows.
CREATE TABLE IF NOT EXISTS schedlens_export_offsets (
  topic                       text NOT NULL,
  partition                   integer NOT NULL,
  next_offset                 bigint NOT NULL,
  PRIMARY KEY (topic, partition)
);

-- Added with WorkloadTimeline v3: when a gang's pods all first ran, and what its early pods held
-- waiting for the rest (GPU-seconds).
ALTER TABLE workload_timelines ADD COLUMN IF NOT EXISTS gang_running_at timestamptz;
ALTER TABLE workload_timelines ADD COLUMN IF NOT EXISTS gang_wait_gpu_seconds double precision;
