// Finding and deleting an aws-asg run's resources by its tag, through each service's
// own describe calls (the Resource Groups Tagging API misses Auto Scaling groups and
// load balancers on moto, and on AWS needs one more permission). The recorded names
// are added to what the tags find, so an untagged half-made resource goes too.
import { AutoScalingClient, DeleteAutoScalingGroupCommand, paginateDescribeAutoScalingGroups } from "@aws-sdk/client-auto-scaling";
import { DeleteLaunchTemplateCommand, EC2Client, paginateDescribeLaunchTemplates } from "@aws-sdk/client-ec2";
import {
  DeleteLoadBalancerCommand,
  DeleteTargetGroupCommand,
  DescribeTagsCommand,
  ElasticLoadBalancingV2Client,
  paginateDescribeLoadBalancers,
  paginateDescribeTargetGroups,
} from "@aws-sdk/client-elastic-load-balancing-v2";
import { RUN_TAG_KEY } from "@opsbench/core";
import { hasRunTag } from "../aws/run-tags";
import type { AwsSession } from "../aws/session";

export interface AsgRecorded {
  launchTemplateName?: string;
  targetGroupArn?: string;
  loadBalancerArn?: string;
  autoScalingGroupName?: string;
}

export interface AsgResources {
  autoScalingGroups: string[];
  loadBalancers: string[];
  targetGroups: string[];
  launchTemplates: string[];
}

async function taggedElb(elb: ElasticLoadBalancingV2Client, arns: string[], runId: string): Promise<string[]> {
  const found: string[] = [];
  for (let i = 0; i < arns.length; i += 20) {
    const r = await elb.send(new DescribeTagsCommand({ ResourceArns: arns.slice(i, i + 20) }));
    for (const d of r.TagDescriptions ?? []) if (d.ResourceArn && hasRunTag(d.Tags, runId)) found.push(d.ResourceArn);
  }
  return found;
}

/** Every resource of the run that the services list with its tag. */
export async function findAsgResources(session: AwsSession, runId: string): Promise<AsgResources> {
  const asg = new AutoScalingClient(session);
  const elb = new ElasticLoadBalancingV2Client(session);
  const ec2 = new EC2Client(session);
  try {
    const autoScalingGroups: string[] = [];
    for await (const page of paginateDescribeAutoScalingGroups(
      { client: asg },
      { Filters: [{ Name: `tag:${RUN_TAG_KEY}`, Values: [runId] }] },
    )) {
      for (const g of page.AutoScalingGroups ?? [])
        if (g.AutoScalingGroupName && hasRunTag(g.Tags, runId)) autoScalingGroups.push(g.AutoScalingGroupName);
    }
    const lbArns: string[] = [];
    for await (const page of paginateDescribeLoadBalancers({ client: elb }, {}))
      for (const lb of page.LoadBalancers ?? []) if (lb.LoadBalancerArn) lbArns.push(lb.LoadBalancerArn);
    const tgArns: string[] = [];
    for await (const page of paginateDescribeTargetGroups({ client: elb }, {}))
      for (const tg of page.TargetGroups ?? []) if (tg.TargetGroupArn) tgArns.push(tg.TargetGroupArn);
    const launchTemplates: string[] = [];
    for await (const page of paginateDescribeLaunchTemplates(
      { client: ec2 },
      { Filters: [{ Name: `tag:${RUN_TAG_KEY}`, Values: [runId] }] },
    )) {
      for (const lt of page.LaunchTemplates ?? []) if (lt.LaunchTemplateName) launchTemplates.push(lt.LaunchTemplateName);
    }
    return {
      autoScalingGroups,
      loadBalancers: await taggedElb(elb, lbArns, runId),
      targetGroups: await taggedElb(elb, tgArns, runId),
      launchTemplates,
    };
  } finally {
    asg.destroy();
    elb.destroy();
    ec2.destroy();
  }
}

/** The value of the run tag on each resource that carries one. */
const runIdsIn = (tagsOfEach: Array<Array<{ Key?: string; Value?: string }> | undefined>) =>
  tagsOfEach.flatMap((tags) => (tags ?? []).filter((t) => t.Key === RUN_TAG_KEY && t.Value).map((t) => t.Value ?? ""));

/** The runs that have any of the four resource types in the session's region (the reaper's listing). */
export async function listAsgRunIds(session: AwsSession): Promise<string[]> {
  const asg = new AutoScalingClient(session);
  const elb = new ElasticLoadBalancingV2Client(session);
  const ec2 = new EC2Client(session);
  try {
    const ids: string[] = [];
    const byTagKey = [{ Name: "tag-key", Values: [RUN_TAG_KEY] }];
    for await (const page of paginateDescribeAutoScalingGroups({ client: asg }, { Filters: byTagKey }))
      ids.push(...runIdsIn((page.AutoScalingGroups ?? []).map((g) => g.Tags)));
    for await (const page of paginateDescribeLaunchTemplates({ client: ec2 }, { Filters: byTagKey }))
      ids.push(...runIdsIn((page.LaunchTemplates ?? []).map((lt) => lt.Tags)));
    const elbArns: string[] = [];
    for await (const page of paginateDescribeLoadBalancers({ client: elb }, {}))
      for (const lb of page.LoadBalancers ?? []) if (lb.LoadBalancerArn) elbArns.push(lb.LoadBalancerArn);
    for await (const page of paginateDescribeTargetGroups({ client: elb }, {}))
      for (const tg of page.TargetGroups ?? []) if (tg.TargetGroupArn) elbArns.push(tg.TargetGroupArn);
    for (let i = 0; i < elbArns.length; i += 20) {
      const r = await elb.send(new DescribeTagsCommand({ ResourceArns: elbArns.slice(i, i + 20) }));
      ids.push(...runIdsIn((r.TagDescriptions ?? []).map((d) => d.Tags)));
    }
    return [...new Set(ids)];
  } finally {
    asg.destroy();
    elb.destroy();
    ec2.destroy();
  }
}

const notFound = (err: unknown) =>
  err instanceof Error && /NotFound|does not exist|not found|ValidationError.*not found/i.test(`${err.name} ${err.message}`);
const ignoreNotFound = (err: unknown) => {
  if (!notFound(err)) throw err;
};
const union = (a: string[], b: string | undefined) => [...new Set(b ? [...a, b] : a)];

/**
 * Deletes the run's resources, dependents first (group, balancer, target group,
 * template), and waits until the group is gone (the target group is in use until then).
 */
export async function deleteAsgResources(
  session: AwsSession,
  runId: string,
  recorded: AsgRecorded,
  waitMs = 600_000,
): Promise<AsgResources> {
  const found = await findAsgResources(session, runId);
  const all: AsgResources = {
    autoScalingGroups: union(found.autoScalingGroups, recorded.autoScalingGroupName),
    loadBalancers: union(found.loadBalancers, recorded.loadBalancerArn),
    targetGroups: union(found.targetGroups, recorded.targetGroupArn),
    launchTemplates: union(found.launchTemplates, recorded.launchTemplateName),
  };
  const asg = new AutoScalingClient(session);
  const elb = new ElasticLoadBalancingV2Client(session);
  const ec2 = new EC2Client(session);
  try {
    for (const name of all.autoScalingGroups)
      await asg.send(new DeleteAutoScalingGroupCommand({ AutoScalingGroupName: name, ForceDelete: true })).catch(ignoreNotFound);
    for (const arn of all.loadBalancers) await elb.send(new DeleteLoadBalancerCommand({ LoadBalancerArn: arn })).catch(ignoreNotFound);
    const until = Date.now() + waitMs;
    while (all.autoScalingGroups.length > 0) {
      const left = (await findAsgResources(session, runId)).autoScalingGroups;
      if (left.length === 0) break;
      if (Date.now() > until) throw new Error(`Auto Scaling group(s) ${left.join(", ")} still there after ${waitMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 2000));
    }
    for (const arn of all.targetGroups) await elb.send(new DeleteTargetGroupCommand({ TargetGroupArn: arn })).catch(ignoreNotFound);
    for (const name of all.launchTemplates)
      await ec2.send(new DeleteLaunchTemplateCommand({ LaunchTemplateName: name })).catch(ignoreNotFound);
    return all;
  } finally {
    asg.destroy();
    elb.destroy();
    ec2.destroy();
  }
}
