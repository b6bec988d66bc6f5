// The peer doing less: an MCP in-memory client/server pair calling `get_order`, a tool with an
// outputSchema, after listTools() so the client validates structuredContent (issue 8, item 2).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export interface McpPeer {
  callGetOrder(): Promise<unknown>;
  close(): Promise<void>;
}

export async function startMcpPeer(): Promise<McpPeer> {
  const server = new McpServer({ name: 'orders', version: '1.0.0' });
  server.registerTool(
    'get_order',
    {
      description: 'Read one order of the caller.',
      // The same contract as fixtures/tools/get-order.json, so both sides validate the same data.
      inputSchema: { order_id: z.string().min(1).max(64).regex(/^ORDER-[A-Z0-9]{1,32}$/) },
      outputSchema: {
        order_ref: z.string().min(1).max(64).regex(/^ORDER-[A-Z0-9]{1,32}$/),
        status: z.enum(['paid', 'pending', 'refunded']),
        amount: z.number().int().min(0).max(1_000_000),
        unit: z.enum(['CREDIT_A', 'CREDIT_B']),
        lines: z
          .array(
            z
              .object({
                line_id: z.string().min(1).max(64).regex(/^[A-Z0-9-]{1,64}$/),
                quantity: z.number().int().min(1).max(10),
                amount: z.number().int().min(0).max(1_000_000),
              })
              .strict(),
          )
          .min(1)
          .max(16),
      },
    },
    ({ order_id }) => {
      const structuredContent = {
        order_ref: order_id,
        status: 'paid' as const,
        amount: 6000,
        unit: 'CREDIT_A' as const,
        lines: [{ line_id: 'LINE-1', quantity: 1, amount: 6000 }],
      };
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  await client.listTools();
  return {
    callGetOrder: () => client.callTool({ name: 'get_order', arguments: { order_id: 'ORDER-C7' } }),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
