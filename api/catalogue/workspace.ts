// admin/v1 and events/v1: a workspace's API keys, its events and webhook subscriptions.
import { keyBody, keyParam as keyIdParam } from '../admin-v1';
import { eventsQuery, pageQuery, subscriptionBody, subscriptionParam } from '../events-v1';
import * as Workspace from '../workspace-schemas';
import type { Operation, OperationDoc } from './operation';

export const operations: Operation[] = [
  {
    method: 'get',
    path: '/admin/v1/keys',
    summary: "List the workspace's API keys (never their secrets)",
    scope: 'admin',
    responses: { 200: Workspace.apiKeyList },
  },
  {
    method: 'post',
    path: '/admin/v1/keys',
    summary: 'Create an API key (the secret is shown once)',
    scope: 'admin',
    body: keyBody,
    responses: { 201: Workspace.createdApiKey },
  },
  {
    method: 'delete',
    path: '/admin/v1/keys/:id',
    summary: 'Revoke an API key, at once',
    scope: 'admin',
    params: keyIdParam,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/events/v1/subscriptions',
    summary: 'Subscribe a URL to event kinds (the signing secret is shown once)',
    scope: 'admin',
    body: subscriptionBody,
    responses: { 201: Workspace.createdSubscription },
  },
  {
    method: 'get',
    path: '/events/v1/subscriptions',
    summary: "The workspace's webhook subscriptions",
    scope: 'admin',
    responses: { 200: Workspace.subscriptionList },
  },
  {
    method: 'get',
    path: '/events/v1/subscriptions/:id',
    summary: 'A webhook subscription',
    scope: 'admin',
    params: subscriptionParam,
    responses: { 200: Workspace.subscription },
  },
  {
    method: 'delete',
    path: '/events/v1/subscriptions/:id',
    summary: 'Disable a webhook subscription',
    scope: 'admin',
    params: subscriptionParam,
    responses: { 204: null },
  },
  {
    method: 'get',
    path: '/events/v1/subscriptions/:id/deliveries',
    summary: 'Delivery log: each delivery and its attempts',
    scope: 'admin',
    params: subscriptionParam,
    query: pageQuery,
    responses: { 200: Workspace.deliveryList },
  },
  {
    method: 'get',
    path: '/events/v1/events',
    summary: 'Events of the workspace, newest first (by entry, by kind)',
    scope: 'admin',
    query: eventsQuery,
    responses: { 200: Workspace.eventList },
  },
];

export const docs: Record<string, OperationDoc> = {
  'get /admin/v1/keys': { description: "The workspace's API keys, their names and scopes; never their secrets." },
  'post /admin/v1/keys': {
    description:
      'Creates an API key with the scopes given: `entries:rw` and `jobs:rw` for an integrator, `approvals` for an operator, `admin` for keys and webhooks. Its secret is in this answer only.',
    examples: { "an operator's key": { name: 'review desk', scopes: ['approvals'] } },
  },
  'delete /admin/v1/keys/:id': {
    description: 'Revokes a key at once (a key cannot revoke itself).',
    errors: ['own-key'],
  },
  'post /events/v1/subscriptions': {
    description:
      "Sends the workspace's events of the kinds given to a URL (Standard Webhooks signatures, retried with backoff). The signing secret is in this answer only.",
    examples: {
      'party states and job ends': {
        url: 'https://erp.example.com/hooks/pa',
        kinds: ['party.state_changed', 'job.completed'],
      },
    },
  },
  'get /events/v1/subscriptions': { description: "The workspace's webhook subscriptions." },
  'get /events/v1/subscriptions/:id': { description: 'A webhook subscription.' },
  'delete /events/v1/subscriptions/:id': { description: 'Disables a subscription: no more deliveries.' },
  'get /events/v1/subscriptions/:id/deliveries': {
    description: 'Each delivery to the subscription, with its attempts (status code, error, duration).',
  },
  'get /events/v1/events': {
    description:
      "The workspace's events, newest first in the order they happened: `party.state_changed`, `party.updated`, `job.completed`. Filter by `entry_id` and `kind` (several, comma-separated); `next_cursor` gives the next page.",
  },
};
