// The relay's API (docs/api-decisions.md §13): rooms, devices, invitations and sealed messages,
// on the same port, under the same API keys and rate limits. Each route validates and calls one
// use case of service/relay/relay.ts.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ErrorMessage } from '../../../shared/api/schemas.ts';
import {
  InvitationAnswer,
  InvitationParams,
  Joined,
  MemberParams,
  MessagePosted,
  MessagesAnswer,
  MessagesQuery,
  NewInvitation,
  PostMessage,
  RelayDeviceKeys,
  Removed,
  RoomCreated,
  RoomParams,
  RoomState,
} from '../../../shared/api/relay.ts';
import { DEVICE_HEADER, SIGNATURE_HEADER, TIME_HEADER } from '../../../shared/relay/request.ts';
import type { Relay, RequestAuth } from '../../relay/relay.ts';
import { ownerOf } from '../../use-cases/watch-wallets.ts';

const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

function authOf(req: FastifyRequest): RequestAuth {
  // the desk signs the path relative to the service's base URL: /v2 is the same API
  const url = req.url.startsWith('/v2/') ? req.url.slice(3) : req.url;
  return { method: req.method, url, device: header(req, DEVICE_HEADER), time: header(req, TIME_HEADER), signature: header(req, SIGNATURE_HEADER) };
}

/** An envelope is at most ~0.6 MiB; its base64 in JSON a little over 0.8 MiB. */
const MESSAGE_BODY_LIMIT = 1_500_000;

export function relayRoutes(relay: Relay): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const denied = { 401: ErrorMessage.describe('Missing or bad device signature headers'), 403: ErrorMessage.describe('Not a current member (or not the owner)'), 404: ErrorMessage.describe('No such room') };

    app.post('/relay/rooms', { schema: { body: RelayDeviceKeys, response: { 201: RoomCreated, 401: denied[401], 429: ErrorMessage } } }, async (req, reply) => {
      void reply.code(201);
      return relay.createRoom(ownerOf(req.apiKeyId), req.body, authOf(req));
    });

    app.get('/relay/rooms/:room', { schema: { params: RoomParams, response: { 200: RoomState, ...denied } } }, async (req) => relay.roomState(req.params.room, authOf(req)));

    app.post('/relay/rooms/:room/invitations', { schema: { params: RoomParams, body: NewInvitation, response: { 201: InvitationAnswer.pick({ id: true, expires_at: true }), ...denied, 409: ErrorMessage, 429: ErrorMessage } } }, async (req, reply) => {
      void reply.code(201);
      return relay.createInvitation(req.params.room, req.body, authOf(req));
    });

    app.get('/relay/invitations/:id', { schema: { params: InvitationParams, response: { 200: InvitationAnswer, 404: ErrorMessage.describe('Unknown, used or expired: one answer for all three') } } }, async (req) => relay.invitation(req.params.id));

    app.post('/relay/invitations/:id/join', { schema: { params: InvitationParams, body: RelayDeviceKeys, response: { 200: Joined, 401: denied[401], 404: ErrorMessage, 409: ErrorMessage } } }, async (req) =>
      relay.join(req.params.id, req.body, authOf(req)),
    );

    app.delete('/relay/rooms/:room/members/:device', { schema: { params: MemberParams, response: { 200: Removed, ...denied } } }, async (req) => relay.removeMember(req.params.room, req.params.device, authOf(req)));

    app.post(
      '/relay/rooms/:room/messages',
      { bodyLimit: MESSAGE_BODY_LIMIT, schema: { params: RoomParams, body: PostMessage, response: { 201: MessagePosted, 400: ErrorMessage, 403: denied[403], 404: denied[404], 409: ErrorMessage.describe('The room moved on: read, renumber, send again'), 413: ErrorMessage, 429: ErrorMessage } } },
      async (req, reply) => {
        const posted = await relay.post(req.params.room, req.body.envelope);
        void reply.code(201);
        return posted;
      },
    );

    app.get('/relay/rooms/:room/messages', { schema: { params: RoomParams, querystring: MessagesQuery, response: { 200: MessagesAnswer, ...denied } } }, async (req) => {
      const gone = new AbortController();
      req.raw.once('close', () => gone.abort());
      return relay.messages(req.params.room, req.query, authOf(req), gone.signal);
    });
  };
}
