// aws-asg: an EC2 Auto Scaling group behind an Application Load Balancer, scaling on
// average CPU with a target-tracking policy (the study's 70%). Every resource is
// tagged opsbench:run=<id>; teardown deletes by tag (resources.ts). Metrics come from
// CloudWatch at their own 60 s resolution (docs/cloud-targets.md).
import {
  AutoScalingClient,
  CreateAutoScalingGroupCommand,
  DescribeAutoScalingGroupsCommand,
  EnableMetricsCollectionCommand,
  PutScalingPolicyCommand,
  UpdateAutoScalingGroupCommand,
} from "@aws-sdk/client-auto-scaling";
import {
  CreateLaunchTemplateCommand,
  DescribeImagesCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  EC2Client,
  type _InstanceType,
} from "@aws-sdk/client-ec2";
import {
  CreateListenerCommand,
  CreateLoadBalancerCommand,
  CreateTargetGroupCommand,
  ElasticLoadBalancingV2Client,
} from "@aws-sdk/client-elastic-load-balancing-v2";
import { awsAsgSpec, cloudResourceName, type AwsAsgSpec } from "@opsbench/core";
import { cloudEndpoint } from "../cloud/cloud-endpoint";
import { observeCloud } from "../cloud/observe-cloud";
import { cloudWatchPeriods, type CloudWatchMetric, PERIOD_SECONDS } from "../aws/cloudwatch-periods";
import { runTags } from "../aws/run-tags";
import { awsCallerIdentity } from "../aws/check-credential";
import { awsCredentialOf, awsErrorMessage, awsSession, reaperAwsSession, type AwsSession } from "../aws/session";
import { ProviderError, type Deployment, type KindProvider, type ProviderContext } from "../provider";
import { deleteAsgResources, listAsgRunIds, type AsgRecorded } from "./resources";
import { containerUserData, instanceArchitecture } from "./user-data";

export interface AwsAsgState extends AsgRecorded {
  region: string;
  credential: string;
  /** "app/<name>/<id>": the LoadBalancer dimension of the ALB's CloudWatch metrics. */
  loadBalancerDimension?: string;
  minSize: number;
  metrics?: AwsAsgSpec["metrics"];
}

async function session(ctx: ProviderContext, state: Pick<AwsAsgState, "region" | "credential">): Promise<AwsSession> {
  return awsSession(awsCredentialOf(ctx, state.credential), state.region, ctx.endpoints?.aws, ctx.runId);
}

/** The subnets to use: the spec's, or the default VPC's (an ALB needs two zones). */
async function subnetsOf(ec2: EC2Client, spec: AwsAsgSpec): Promise<{ vpcId: string; subnetIds: string[] }> {
  if (spec.subnetIds) {
    const r = await ec2.send(new DescribeSubnetsCommand({ SubnetIds: spec.subnetIds }));
    const vpcId = r.Subnets?.[0]?.VpcId;
    if (!vpcId) throw new ProviderError(`subnets ${spec.subnetIds.join(", ")} not found in ${spec.region}`);
    return { vpcId, subnetIds: spec.subnetIds };
  }
  const vpcs = await ec2.send(new DescribeVpcsCommand({ Filters: [{ Name: "is-default", Values: ["true"] }] }));
  const vpcId = vpcs.Vpcs?.[0]?.VpcId;
  if (!vpcId) throw new ProviderError(`${spec.region} has no default VPC: give subnetIds`);
  const subnets = await ec2.send(new DescribeSubnetsCommand({ Filters: [{ Name: "vpc-id", Values: [vpcId] }] }));
  const byZone = new Map<string, string>();
  for (const s of subnets.Subnets ?? [])
    if (s.AvailabilityZone && s.SubnetId && !byZone.has(s.AvailabilityZone)) byZone.set(s.AvailabilityZone, s.SubnetId);
  if (byZone.size < 2) throw new ProviderError(`the default VPC of ${spec.region} has subnets in fewer than two zones: give subnetIds`);
  return { vpcId, subnetIds: [...byZone.values()] };
}

/** The spec's AMI, or the region's newest Amazon Linux 2023 image (not the minimal one) for the instance type's architecture. */
async function imageOf(ec2: EC2Client, spec: AwsAsgSpec): Promise<string> {
  if (spec.imageId) return spec.imageId;
  const architecture = instanceArchitecture(spec.instanceType);
  const r = await ec2.send(
    new DescribeImagesCommand({
      Owners: ["amazon"],
      Filters: [
        { Name: "name", Values: [`al2023-ami-2023.*-${architecture}`] },
        { Name: "architecture", Values: [architecture] },
        { Name: "state", Values: ["available"] },
      ],
    }),
  );
  const newest = (r.Images ?? [])
    .filter((i) => i.ImageId && !i.Name?.includes("minimal"))
    .sort((a, b) => (b.CreationDate ?? "").localeCompare(a.CreationDate ?? "") || (b.Name ?? "").localeCompare(a.Name ?? ""))[0];
  if (!newest?.ImageId) throw new ProviderError(`no Amazon Linux 2023 image (${architecture}) found in ${spec.region}: give imageId`);
  return newest.ImageId;
}

/** The user data the instances boot with: the user's script, or the one opsbench renders for `container`. */
export function userDataOf(spec: AwsAsgSpec, runId: string): string | undefined {
  return spec.container ? containerUserData(spec.container, spec.port, runId) : spec.userData;
}

async function deploy(spec: AwsAsgSpec, ctx: ProviderContext): Promise<Deployment<AwsAsgState>> {
  const state: AwsAsgState = { region: spec.region, credential: spec.credential, minSize: spec.minSize, metrics: spec.metrics };
  const s = await session(ctx, state);
  // Refused credentials fail here, before anything is created.
  await awsCallerIdentity(s, spec.credential);
  await ctx.saveState(state);
  const name = cloudResourceName(ctx.runId);
  const tags = runTags(ctx.runId);
  const ec2 = new EC2Client(s);
  const elb = new ElasticLoadBalancingV2Client(s);
  const asg = new AutoScalingClient(s);
  const step = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      throw new ProviderError(`creating the ${what} failed: ${awsErrorMessage(err)}`);
    }
  };
  try {
    const { vpcId, subnetIds } = await step("network lookup", () => subnetsOf(ec2, spec));
    const imageId = await step("image lookup", () => imageOf(ec2, spec));
    const userData = userDataOf(spec, ctx.runId);
    await step("launch template", () =>
      ec2.send(
        new CreateLaunchTemplateCommand({
          LaunchTemplateName: name,
          LaunchTemplateData: {
            ImageId: imageId,
            // The SDK types instance types as a closed list; AWS adds new ones, so the spec takes any name.
            InstanceType: spec.instanceType as _InstanceType,
            // 1-minute CPU metrics (detailed monitoring): basic monitoring reports every 5 minutes.
            Monitoring: { Enabled: true },
            ...(userData ? { UserData: Buffer.from(userData).toString("base64") } : {}),
            TagSpecifications: [{ ResourceType: "instance", Tags: tags }],
          },
          TagSpecifications: [{ ResourceType: "launch-template", Tags: tags }],
        }),
      ),
    );
    state.launchTemplateName = name;
    await ctx.saveState(state);
    const tg = await step("target group", () =>
      elb.send(
        new CreateTargetGroupCommand({
          Name: name,
          Protocol: "HTTP",
          Port: spec.port,
          VpcId: vpcId,
          TargetType: "instance",
          HealthCheckPath: spec.healthCheckPath,
          Tags: tags,
        }),
      ),
    );
    state.targetGroupArn = tg.TargetGroups?.[0]?.TargetGroupArn;
    await ctx.saveState(state);
    const lb = await step("load balancer", () =>
      elb.send(
        new CreateLoadBalancerCommand({ Name: name, Subnets: subnetIds, Type: "application", Scheme: "internet-facing", Tags: tags }),
      ),
    );
    const alb = lb.LoadBalancers?.[0];
    state.loadBalancerArn = alb?.LoadBalancerArn;
    state.loadBalancerDimension = alb?.LoadBalancerArn?.split(":loadbalancer/")[1];
    await ctx.saveState(state);
    await step("listener", () =>
      elb.send(
        new CreateListenerCommand({
          LoadBalancerArn: state.loadBalancerArn,
          Protocol: "HTTP",
          Port: 80,
          DefaultActions: [{ Type: "forward", TargetGroupArn: state.targetGroupArn }],
          Tags: tags,
        }),
      ),
    );
    state.autoScalingGroupName = name;
    await ctx.saveState(state);
    await step("Auto Scaling group", () =>
      asg.send(
        new CreateAutoScalingGroupCommand({
          AutoScalingGroupName: name,
          LaunchTemplate: { LaunchTemplateName: name, Version: "$Latest" },
          MinSize: spec.minSize,
          MaxSize: spec.maxSize,
          DesiredCapacity: spec.minSize,
          VPCZoneIdentifier: subnetIds.join(","),
          TargetGroupARNs: state.targetGroupArn ? [state.targetGroupArn] : [],
          HealthCheckType: "ELB",
          HealthCheckGracePeriod: spec.warmupSeconds,
          Tags: tags.map((t) => ({ ...t, PropagateAtLaunch: true })),
        }),
      ),
    );
    // Group metrics (GroupInServiceInstances...) are only published when collected, at 1 minute.
    await step("group metrics collection", () =>
      asg.send(new EnableMetricsCollectionCommand({ AutoScalingGroupName: name, Granularity: "1Minute" })),
    );
    await step("target-tracking policy", () =>
      asg.send(
        new PutScalingPolicyCommand({
          AutoScalingGroupName: name,
          PolicyName: `${name}-cpu`,
          PolicyType: "TargetTrackingScaling",
          EstimatedInstanceWarmup: spec.warmupSeconds,
          TargetTrackingConfiguration: {
            PredefinedMetricSpecification: { PredefinedMetricType: "ASGAverageCPUUtilization" },
            TargetValue: spec.targetCpuPercent,
          },
        }),
      ),
    );
    await ctx.event?.(
      "info",
      `Auto Scaling group ${name} created (${spec.minSize}-${spec.maxSize} x ${spec.instanceType} from ${imageId}${spec.container ? `, running ${spec.container.image}` : ""}, CPU target ${spec.targetCpuPercent}%)`,
    );
    return { endpoint: spec.endpointUrl ?? `http://${alb?.DNSName}`, state };
  } finally {
    ec2.destroy();
    elb.destroy();
    asg.destroy();
  }
}

/** Back to the baseline: desired = min, and that many instances in service (bounded wait). */
async function reset(dep: Deployment<AwsAsgState>, ctx: ProviderContext, timeoutMs = 600_000): Promise<void> {
  const { state } = dep;
  const asg = new AutoScalingClient(await session(ctx, state));
  try {
    await asg.send(new UpdateAutoScalingGroupCommand({ AutoScalingGroupName: state.autoScalingGroupName, DesiredCapacity: state.minSize }));
    const until = Date.now() + timeoutMs;
    for (;;) {
      const r = await asg.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [state.autoScalingGroupName!] }));
      const inService = (r.AutoScalingGroups?.[0]?.Instances ?? []).filter((i) => i.LifecycleState === "InService").length;
      if (inService === state.minSize) return;
      if (Date.now() > until || ctx.signal.aborted)
        throw new ProviderError(
          `the Auto Scaling group has ${inService} instance(s) in service, not ${state.minSize}, after ${timeoutMs / 1000} s`,
        );
      await new Promise((r) => setTimeout(r, 5000));
    }
  } finally {
    asg.destroy();
  }
}

/** The CloudWatch metrics of the group and its ALB. */
export function asgMetrics(state: AwsAsgState): CloudWatchMetric[] {
  const group = { AutoScalingGroupName: state.autoScalingGroupName ?? "" };
  const lb = { LoadBalancer: state.loadBalancerDimension ?? "" };
  const m = (
    key: string,
    namespace: string,
    metricName: string,
    dimensions: Record<string, string>,
    stat: CloudWatchMetric["stat"],
  ): CloudWatchMetric => ({
    key,
    namespace,
    metricName,
    dimensions,
    stat,
  });
  return [
    m("inServiceInstances", "AWS/AutoScaling", "GroupInServiceInstances", group, "Average"),
    m("desiredCapacity", "AWS/AutoScaling", "GroupDesiredCapacity", group, "Average"),
    m("cpuPercent", "AWS/EC2", "CPUUtilization", group, "Average"),
    // Study 002 read CPU as CloudWatch's p99 (an extended statistic).
    m("cpuPercentP99", "AWS/EC2", "CPUUtilization", group, "p99"),
    m("requests", "AWS/ApplicationELB", "RequestCount", lb, "Sum"),
    m("targetResponseTimeSeconds", "AWS/ApplicationELB", "TargetResponseTime", lb, "Average"),
    m("http2xx", "AWS/ApplicationELB", "HTTPCode_Target_2XX_Count", lb, "Sum"),
    m("http4xx", "AWS/ApplicationELB", "HTTPCode_Target_4XX_Count", lb, "Sum"),
    m("http5xx", "AWS/ApplicationELB", "HTTPCode_Target_5XX_Count", lb, "Sum"),
    m("elb5xx", "AWS/ApplicationELB", "HTTPCode_ELB_5XX_Count", lb, "Sum"),
    // What the ALB bills beside its hours: LCUs used in the minute (averaged over it).
    m("consumedLcus", "AWS/ApplicationELB", "ConsumedLCUs", lb, "Average"),
  ];
}

function observe(dep: Deployment<AwsAsgState>, window: { signal: AbortSignal }, ctx: ProviderContext) {
  return observeCloud(
    {
      kind: "aws-asg",
      periodSeconds: PERIOD_SECONDS,
      primary: "inServiceInstances",
      totals: ["instanceSeconds", "requests", "lcuHours"],
      open: async () => cloudWatchPeriods(await session(ctx, dep.state), asgMetrics(dep.state)),
      point: (v) => ({
        replicas: Math.round(v.inServiceInstances ?? 0),
        cpuPercent: v.cpuPercent,
        detail: { desired: v.desiredCapacity },
        add: {
          instanceSeconds: (v.inServiceInstances ?? 0) * PERIOD_SECONDS,
          requests: v.requests,
          lcuHours: v.consumedLcus == null ? null : v.consumedLcus / 60,
        },
      }),
    },
    window,
    dep.state.metrics,
    ctx.log,
  );
}

async function teardown(dep: { state: Partial<AwsAsgState> }, ctx: ProviderContext): Promise<void> {
  const { state } = dep;
  if (!state.region || !state.credential) return;
  const deleted = await deleteAsgResources(await session(ctx, { region: state.region, credential: state.credential }), ctx.runId, state);
  ctx.log("aws-asg resources deleted", { ...deleted });
}

export const awsAsg: KindProvider<"aws-asg", AwsAsgState> = {
  kind: "aws-asg",
  spec: awsAsgSpec,
  deploy,
  reset,
  observe,
  teardown,
  ...cloudEndpoint,
  // Tagged resources in the credential's region, found through the same describe calls teardown uses.
  reaper: {
    listRuns: async (ctx) => listAsgRunIds(await reaperAwsSession(ctx)),
    deleteRun: async (runId, ctx) => {
      await deleteAsgResources(await reaperAwsSession(ctx), runId, {});
    },
  },
};
