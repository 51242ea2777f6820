/**
 * The webhook ports of the functions that need more than the stores:
 * `sealingPorts` (create, rotate: KMS and the address policy),
 * `queueingPorts` (test, redelivery: SQS, at once only) and `checkingPorts`
 * (update: the address policy). The deliverer's, which add HTTPS and
 * EventBridge Scheduler, are in delivery-ports.ts. One module per set would
 * not shrink the bundles further: esbuild keeps only what a handler reaches.
 */
import { partialPorts } from './webhook-services';
import { requiredSetting } from '../platform/environment';
import { kmsSecretBox } from '../adapters/secret-box-kms';
import { STRICT_POLICY, systemResolver } from '../platform/webhook-address';
import { sqsDeliveryQueue } from '../adapters/webhook-queue-sqs';

export const sealingPorts = () => partialPorts({ policy: STRICT_POLICY, resolve: systemResolver, secrets: kmsSecretBox() });
export const queueingPorts = () => partialPorts({ queue: sqsDeliveryQueue({ queueUrl: requiredSetting('WEBHOOK_QUEUE_URL') }) });
export const checkingPorts = () => partialPorts({ policy: STRICT_POLICY, resolve: systemResolver });
