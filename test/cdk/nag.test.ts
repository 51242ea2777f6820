/**
 * cdk-nag (AwsSolutions and Serverless) runs on every synthesis. Here: no
 * finding is left unacknowledged (warnings included), every acknowledgement
 * has a specific reason and is documented, and every acknowledgement still
 * matches a real finding (no stale or speculative ones).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, CfnElement, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { ApiKeyServiceStack } from '../../lib/api-key-service-stack';
import { readServiceConfig } from '../../lib/config';
import { logicalIdOf, REPO_ROOT, resourcesOf, synthesizeService, testAppContext, testOutdir, type SynthesizedService } from './service';

interface Acknowledgement {
  readonly resource: string;
  readonly id: string;
  readonly reason: string;
}

let service: SynthesizedService;
let acknowledgements: Acknowledgement[];

beforeAll(() => {
  // Synthesis itself fails on an unacknowledged error-level finding.
  service = synthesizeService();
  acknowledgements = Object.entries(resourcesOf(service.template)).flatMap(([resource, { Metadata }]) =>
    ((Metadata?.cdk_nag as { rules_to_suppress: Array<{ id: string; reason: string }> } | undefined)?.rules_to_suppress ?? []).map(({ id, reason }) => ({
      resource,
      id,
      reason,
    })),
  );
});

it('the AwsSolutions and Serverless packs report no unacknowledged finding, warnings included', () => {
  // Act
  const reports = service.nagPacks.map((pack) => ({ pack: pack.name, ...pack.validateScope(service.app) }));

  // Assess
  expect(reports.map(({ pack, violations }) => ({ pack, violations }))).toEqual([
    { pack: 'AwsSolutions', violations: [] },
    { pack: 'Serverless', violations: [] },
  ]);
});

it('every acknowledgement carries a specific reason', () => {
  expect(acknowledgements.length).toBeGreaterThan(0);
  const vague = acknowledgements.filter(({ reason }) => reason.trim().length < 80);
  expect(vague).toEqual([]);
});

it('the archive PutObject grant is acknowledged as one write-once object per audit event, not per stream batch', () => {
  const archive = acknowledgements.filter(({ id }) => id.startsWith('AwsSolutions-IAM5[Resource::<') && id.includes('/audit/*'));
  expect(archive).toHaveLength(1);
  expect(archive[0]!.reason).toContain('one write-once object per audit event');
  expect(archive[0]!.reason).not.toContain('batch');
});

it('the verify preflight method carries its own APIG4 reason (a preflight has no credentials; COG4 skips OPTIONS)', () => {
  // Prepare
  const methods = resourcesOf(service.template, 'AWS::ApiGateway::Method');
  const preflights = Object.keys(methods).filter((id) => methods[id]?.Properties?.HttpMethod === 'OPTIONS');

  // Act
  const acknowledged = acknowledgements.filter(({ resource }) => preflights.includes(resource));

  // Assess
  expect(preflights).toHaveLength(1);
  expect(acknowledged.map(({ id }) => id)).toEqual(['AwsSolutions-APIG4']);
  for (const { reason } of acknowledged) expect(reason).toMatch(/^CORS preflight of \/functions\/v1\/verify-api-key: /);
});

it('every acknowledged rule is listed in docs/deploy.md', () => {
  // Prepare
  const docs = readFileSync(path.join(REPO_ROOT, 'docs', 'deploy.md'), 'utf8');
  const rules = [...new Set(acknowledgements.map(({ id }) => id.replace(/\[.*$/, '')))].sort();

  // Assess
  expect(rules.filter((rule) => !docs.includes(rule))).toEqual([]);
});

it('every acknowledgement matches a finding the packs raise without it', () => {
  // Prepare: the same stack with acknowledgements switched off
  const acknowledge = jest.spyOn(Validations.prototype, 'acknowledge').mockImplementation(() => undefined);
  let findings: Set<string>;
  try {
    // Findings do not depend on the code, so no bundling (`synthesizeService` does the same).
    const app = new App({ context: { ...testAppContext(), 'aws:cdk:bundling-stacks': [] }, outdir: testOutdir(), builtinCloudFormationValidation: false });
    // Same stack id: generated names (the schedule group's) appear in finding ids.
    new ApiKeyServiceStack(app, service.stack.node.id, { config: readServiceConfig(app) });
    app.synth();

    // Act
    findings = new Set(
      [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
        pack
          .validateScope(app)
          .violations.flatMap((violation) => violation.violatingResources.map((resource) => `${resource.constructPath} ${violation.ruleName}`)),
      ),
    );
  } finally {
    acknowledge.mockRestore();
  }

  // Assess: each acknowledged (resource, rule) is a real finding on that resource
  // Each element's logical id resolved once: resolving every element's for each acknowledgement took about 2 s of CPU.
  const pathByLogicalId = new Map(
    service.stack.node
      .findAll()
      .filter(CfnElement.isCfnElement)
      .map((element) => [logicalIdOf(element), element.node.path]),
  );
  const stale = acknowledgements.map(({ resource, id }) => `${pathByLogicalId.get(resource)} ${id}`).filter((finding) => !findings.has(finding));
  expect(stale).toEqual([]);
  expect(findings.size).toBe(acknowledgements.length);
});
