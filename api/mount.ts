// Serves a service's routes behind the key's scope check (api/auth.ts): every authenticated route checks one.
import type { Router } from 'express';
import { mountRoutes, type Route } from '../web/http/route';
import { requireScope } from './auth';

export const serveRoutes = <D>(base: string, routes: Route<D>[], deps: D): Router =>
  mountRoutes(base, routes, deps, (r) => (r.scope ? [requireScope(r.scope)] : []));
