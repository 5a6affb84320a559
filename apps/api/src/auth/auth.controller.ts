import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  ApiSessionAuth,
  AuthenticatedUser,
  AuthRateLimit,
  CurrentUser,
  Public,
  SessionService,
} from '@solar/auth';
import { AccountsService, toUserInfo } from '@solar/domain';
import { VALIDATION_ERROR_BODY_SCHEMA } from '@solar/platform';
import { AuthResponseDto, authResponse } from './dto/auth-response.dto';
import { LoginDto } from './dto/login.dto';
import { RegisterDto } from './dto/register.dto';
import { ResendCodeDto } from './dto/resend-code.dto';
import { VerifyEmailDto } from './dto/verify-email.dto';

/** A failed authentication operation answers an AuthResponse with `success` false; bad input, `{ errors }`. */
const AuthFailedResponse = (description: string) =>
  ApiBadRequestResponse({
    description,
    schema: {
      oneOf: [
        { $ref: getSchemaPath(AuthResponseDto) },
        { $ref: getSchemaPath(VALIDATION_ERROR_BODY_SCHEMA) },
      ],
    },
  });

@ApiTags('auth')
@ApiOkResponse({ type: AuthResponseDto })
@Controller('api/auth')
export class AuthController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sessions: SessionService,
  ) {}

  @Public()
  @AuthRateLimit()
  @Post('register')
  @ApiOperation({ summary: 'Register an account and mail it a verification code' })
  @HttpCode(200)
  @AuthFailedResponse('Validation errors, or the e-mail is already registered')
  async register(@Body() body: RegisterDto): Promise<AuthResponseDto> {
    await this.accounts.register(body);
    return authResponse('Registration successful. Check your e-mail for the verification code.');
  }

  @Public()
  @AuthRateLimit()
  @Post('verify-email')
  @ApiOperation({ summary: 'Verify an e-mail address with the mailed code' })
  @HttpCode(200)
  @AuthFailedResponse('Invalid or expired code, or the account is locked')
  async verifyEmail(@Body() body: VerifyEmailDto): Promise<AuthResponseDto> {
    return authResponse('Email verified', await this.accounts.verifyEmail(body.email, body.code));
  }

  @Public()
  @AuthRateLimit()
  @Post('resend-code')
  @ApiOperation({ summary: 'Mail a new verification code' })
  @HttpCode(200)
  @AuthFailedResponse('Rate limit reached, unknown e-mail or already verified')
  async resendCode(@Body() body: ResendCodeDto): Promise<AuthResponseDto> {
    await this.accounts.resendCode(body.email);
    return authResponse('A new verification code has been sent');
  }

  @Public()
  @AuthRateLimit()
  @Post('login')
  @ApiOperation({ summary: 'Log in: start a session (sets the session cookie)' })
  @HttpCode(200)
  @AuthFailedResponse('Invalid credentials, e-mail not verified, or account locked')
  async login(@Body() body: LoginDto, @Req() request: Request): Promise<AuthResponseDto> {
    const user = await this.accounts.authenticate(body.email, body.password);
    await this.sessions.start(request, user, body.rememberMe === true);
    return authResponse('Login successful', toUserInfo(user));
  }

  @Get('me')
  @ApiOperation({ summary: 'The signed-in user' })
  @ApiSessionAuth()
  me(@CurrentUser() user: AuthenticatedUser): AuthResponseDto {
    return authResponse(null, user);
  }

  @Post('logout')
  @HttpCode(200)
  @ApiOperation({ summary: 'Log out: end the session and clear its cookie' })
  @ApiSessionAuth()
  async logout(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AuthResponseDto> {
    await this.sessions.end(request, response);
    return authResponse('Logged out');
  }
}
